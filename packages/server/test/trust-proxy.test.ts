// TRUST_PROXY: which client address the per-IP limits, the audit log and the logs see. Off by
// default (the socket's peer); a hop count trusts that many proxies in X-Forwarded-For; a list
// trusts only peers at those addresses. Both dialects (the audit row is stored).
import { beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';
import { FAILED_AUTH_PER_MIN } from '../src/domain/rate-limits.ts';
import { bearer, eachDialect, useHarness, type Org } from './helpers/harness.ts';

const PROXY = '10.0.0.5';
const CLIENT_A = '203.0.113.7';
const CLIENT_B = '198.51.100.9';

describe('TRUST_PROXY parsing', () => {
  const parse = (value: string | undefined) => loadConfig({ MALLARD_SECRET: 'x'.repeat(40), TRUST_PROXY: value }).trustProxy;

  it('is off by default and for 0/false/off', () => {
    expect(parse(undefined)).toBe(false);
    for (const off of ['', '0', 'false', 'off', 'no']) expect(parse(off)).toBe(false);
  });

  it('takes true, a hop count, or a list of addresses and CIDR ranges', () => {
    expect(parse('true')).toBe(true);
    expect(parse('2')).toBe(2);
    expect(parse('10.0.0.5, 10.1.0.0/16,::1,fd00::/8')).toEqual(['10.0.0.5', '10.1.0.0/16', '::1', 'fd00::/8']);
  });

  it('refuses anything else with one line naming the variable', () => {
    for (const bad of ['proxy.example', '10.0.0.0/33', '10.0.0.1/8/2', '11', 'yes please']) {
      expect(() => parse(bad), bad).toThrow(ConfigError);
      expect(() => parse(bad), bad).toThrow(/TRUST_PROXY/);
    }
  });
});

const MODES = [
  { title: 'off', trustProxy: false, seen: PROXY },
  { title: 'one hop', trustProxy: 1, seen: CLIENT_A },
  { title: 'a list holding the proxy', trustProxy: ['10.0.0.0/24'], seen: CLIENT_A },
  { title: 'a list without the proxy', trustProxy: ['192.0.2.1'], seen: PROXY },
] as const;

for (const mode of MODES) {
  eachDialect(`TRUST_PROXY ${mode.title}`, ({ name, skip }) => {
    const h = useHarness(name, { config: { trustProxy: mode.trustProxy as boolean | number | string[] } });
    let org: Org;
    beforeAll(async () => { org = await h.org('Proxy'); });

    const fromProxy = (client: string) => ({ remoteAddress: PROXY, headers: { 'x-forwarded-for': client } });

    it.skipIf(skip)(`the audit row records ${mode.seen === PROXY ? 'the proxy' : 'the client'}`, async () => {
      const res = await h.app.inject({
        method: 'POST', url: '/v1/manage/deploys', ...fromProxy(CLIENT_A),
        headers: { ...fromProxy(CLIENT_A).headers, ...bearer(org.keys.secret), 'content-type': 'application/json', 'x-request-id': `proxy-${mode.title.replace(/ /g, '-')}` },
        payload: { version: 'v1' },
      });
      expect(res.statusCode).toBe(201);
      const row = await h.store.db.selectFrom('audit_log').select(['ip', 'request_id'])
        .where('org_id', '=', org.org_id).where('action', '=', 'deploy.recorded').executeTakeFirstOrThrow();
      expect(row).toEqual({ ip: mode.seen, request_id: `proxy-${mode.title.replace(/ /g, '-')}` });
    });

    it.skipIf(skip)(`failed authentications are counted per ${mode.seen === PROXY ? 'proxy' : 'client'}`, async () => {
      for (let i = 0; i < FAILED_AUTH_PER_MIN; i++) {
        const res = await h.app.inject({ method: 'GET', url: '/v1/query/whoami', ...fromProxy(CLIENT_A), headers: { ...fromProxy(CLIENT_A).headers, ...bearer('svc_sec_wrong') } });
        expect(res.statusCode).toBe(401);
      }
      const a = await h.app.inject({ method: 'GET', url: '/v1/query/whoami', ...fromProxy(CLIENT_A), headers: { ...fromProxy(CLIENT_A).headers, ...bearer('svc_sec_wrong') } });
      expect(a.statusCode).toBe(429);
      // Another client behind the same proxy: locked out with A only when the proxy is what counts.
      const b = await h.app.inject({ method: 'GET', url: '/v1/query/whoami', ...fromProxy(CLIENT_B), headers: { ...fromProxy(CLIENT_B).headers, ...bearer('svc_sec_wrong') } });
      expect(b.statusCode).toBe(mode.seen === PROXY ? 429 : 401);
      h.clock.advance(60_000);
    });
  });
}
