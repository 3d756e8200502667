// The contract checker itself: it must catch each kind of drift between an answer and the
// OpenAPI document, or the suite-wide check (every harness suite) would pass on anything.
import { describe, expect, it } from 'vitest';
import { ContractChecker } from './helpers/contract.ts';
import { eachDialect, useHarness, bearer, type Org } from './helpers/harness.ts';
import { beforeAll } from 'vitest';

eachDialect('OpenAPI contract checker', ({ name, skip }) => {
  const h = useHarness(name);
  let checker: ContractChecker;
  let org: Org;
  beforeAll(async () => {
    checker = await ContractChecker.of(h.app);
    org = await h.org('Contract');
  });

  const json = 'application/json; charset=utf-8';
  const whoami = (status: number, body: unknown) => ({ method: 'GET', route: '/v1/query/whoami', status, contentType: json, body: JSON.stringify(body) });

  it.skipIf(skip)('a real answer passes', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/v1/query/whoami', headers: bearer(org.keys.secret) });
    expect(checker.check({ ...whoami(res.statusCode, res.json()) })).toBeNull();
  });

  it.skipIf(skip)('an undocumented status, a body off its schema and an undocumented code are each caught', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/v1/query/whoami', headers: bearer(org.keys.secret) });
    const good = res.json();
    expect(checker.check(whoami(418, good))).toMatch(/status not documented/);
    expect(checker.check(whoami(200, { ...good, data: { ...good.data, org: { ...good.data.org, id: 42 } } }))).toMatch(/does not match the schema/);
    expect(checker.check(whoami(200, { ...good, data: { ...good.data, surprise: true } }))).toMatch(/does not match the schema/);
    const error = (code: string, status: number) => whoami(status, { data: null, error: { code, message: 'm', status } });
    expect(checker.check(error('missing_auth', 401))).toBeNull();
    expect(checker.check(error('invalid_credentials', 401))).toMatch(/error code invalid_credentials not documented/);
    expect(checker.check(error('conflict', 409))).toMatch(/status not documented/);
  });
});

describe('OpenAPI paths', () => {
  it('maps Fastify route patterns to document paths', async () => {
    const { openApiPath } = await import('./helpers/contract.ts');
    expect(openApiPath('/v1/manage/webhooks/:id/deliveries/:delivery_id/retry')).toBe('/v1/manage/webhooks/{id}/deliveries/{delivery_id}/retry');
  });
});
