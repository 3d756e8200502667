// The document is exact for the generic bad inputs: every operation it lists is sent a NUL
// byte in a query parameter and in a path parameter, bad percent-encoding in each, and (when it
// takes a body) JSON nested 100,000 deep, a huge array of empty objects and a very long key.
// Each answer must be a status, code and body the document lists for that operation; a fuzz
// run once found 68 enveloped 400s on public operations that listed no 400 at all.
import { Ajv2020 } from 'ajv/dist/2020.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { BODY_LIMIT } from '../src/app.ts';
import { signUserToken } from '../src/auth/jwt.ts';
import { MAX_JSON_DEPTH } from '../src/http/request-data.ts';
import { CLIP_MAX_DEPTH } from '../src/features/clips/schemas.ts';
import { credentialFor, deepArrays, emptyObjects, fillPath, longKey } from './helpers/bad-requests.ts';
import { ContractChecker } from './helpers/contract.ts';
import { operationsOf, type FuzzOperation } from './helpers/fuzzer.ts';
import { bearer, useHarness, type Org } from './helpers/harness.ts';

interface GenericInput {
  label: string;
  /** The request for this operation, or null when the input does not apply to it. */
  build(o: FuzzOperation): { url: string; payload?: string } | null;
  /** What the answer must be besides documented: a 400 with this code and field. */
  expect?: { code: string; field: (o: FuzzOperation) => string };
}

const queryNames = (o: FuzzOperation) => (o.op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
const pathNames = (o: FuzzOperation) => (o.op.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name);
/** A query parameter the operation reads, or an unknown one (ignored, but still read) when it has none. */
const someQuery = (o: FuzzOperation) => queryNames(o).find((n) => n !== 'key' && n !== 'site_id') ?? 'x';
const withPathParam = (o: FuzzOperation, value: string) => {
  const name = pathNames(o)[0];
  return name === undefined ? null : fillPath(o.path.replace(`{${name}}`, value));
};
const takesBody = (o: FuzzOperation) => (o.op as { requestBody?: unknown }).requestBody !== undefined;
const needsBody = (o: FuzzOperation) => takesBody(o) || ['POST', 'PATCH', 'PUT'].includes(o.method);

/** The deepest body a route takes: MAX_JSON_DEPTH, or for clip uploads (rrweb snapshots nest deep) CLIP_MAX_DEPTH. */
const depthLimitOf = (o: FuzzOperation) => (o.path === '/v1/ingest/clips' ? CLIP_MAX_DEPTH : MAX_JSON_DEPTH);

const INPUTS: GenericInput[] = [
  // With a body where one is needed, so the NUL check is what answers (not empty_body).
  { label: 'a NUL byte in a query parameter', build: (o) => ({ url: `${fillPath(o.path)}?${someQuery(o)}=a%00b`, payload: needsBody(o) ? '{}' : undefined }), expect: { code: 'invalid_input', field: someQuery } },
  { label: 'bad percent-encoding in a query parameter', build: (o) => ({ url: `${fillPath(o.path)}?${someQuery(o)}=%FF%zz` }) },
  { label: 'a NUL byte in a path parameter', build: (o) => { const url = withPathParam(o, 'a%00b'); return url ? { url } : null; } },
  { label: 'bad percent-encoding in the path', build: (o) => { const url = withPathParam(o, '%FF'); return url ? { url } : null; }, expect: { code: 'invalid_input', field: () => 'path' } },
  { label: 'a body nested 100,000 deep', build: (o) => (takesBody(o) ? { url: fillPath(o.path), payload: deepArrays(100_000) } : null) },
  { label: 'a body nested one level deeper than its route takes', build: (o) => (takesBody(o) ? { url: fillPath(o.path), payload: `{"a":${deepArrays(depthLimitOf(o))}}` } : null), expect: { code: 'invalid_input', field: () => 'body' } },
  { label: 'a huge array of empty objects', build: (o) => (takesBody(o) ? { url: fillPath(o.path), payload: emptyObjects(BODY_LIMIT - 64) } : null) },
  { label: 'a very long key', build: (o) => (takesBody(o) ? { url: fillPath(o.path), payload: longKey(BODY_LIMIT - 64) } : null) },
];

describe('the OpenAPI document lists every answer to generic bad input', () => {
  const h = useHarness('sqlite', { raisedLimits: true });
  let checker: ContractChecker;
  let operations: FuzzOperation[];
  let org: Org;

  beforeAll(async () => {
    checker = await ContractChecker.of(h.app);
    operations = operationsOf(checker.doc);
    org = await h.org('Exact');
  });

  it('walks every operation, public ones included', () => {
    const listed = operations.map((o) => `${o.method} ${o.path}`);
    for (const op of ['GET /healthz', 'GET /readyz', 'GET /v1/fun', 'GET /docs', 'GET /sdk.js', 'GET /v1/openapi.json', 'GET /metrics', 'GET /v1/query/whoami', 'POST /v1/ingest', 'POST /v1/mcp']) {
      expect(listed).toContain(op);
    }
  });

  it.each(INPUTS.map((input) => [input.label, input] as const))('%s: every answer is documented for its operation', async (_label, input) => {
    const problems: string[] = [];
    let sent = 0;
    for (const o of operations) {
      const request = input.build(o);
      if (!request) continue;
      sent++;
      // A token of its own: POST /v1/auth/logout revokes the one it is sent.
      const jwt = (await signUserToken(h.secrets, org.user_id, org.org_id, h.clock.now(), 3600)).token;
      const auth = credentialFor(o, { ...org, jwt });
      const credentialQuery = new URLSearchParams(auth.query).toString();
      const url = credentialQuery ? `${request.url}${request.url.includes('?') ? '&' : '?'}${credentialQuery}` : request.url;
      // Each from its own address: the per-address failed-authentication lockout never interferes.
      const res = await h.app.inject({
        method: o.method as 'GET', url, payload: request.payload, remoteAddress: `10.77.${sent >> 8 & 255}.${sent & 255}`,
        headers: { ...auth.headers, ...(request.payload === undefined ? {} : { 'content-type': 'application/json' }), accept: 'application/json, text/event-stream' },
      });
      const where = `${o.method} ${o.path} -> ${res.statusCode} ${res.body.slice(0, 200)}`;
      const problem = checker.check({ method: o.method, route: o.path, status: res.statusCode, contentType: String(res.headers['content-type'] ?? ''), body: res.body });
      if (problem) problems.push(`${problem} (${where})`);
      if (res.statusCode >= 500) problems.push(`5xx: ${where}`);
      if (input.expect) {
        const error = res.statusCode === 400 ? (res.json() as { error?: { code?: string; details?: { field?: string } } }).error : undefined;
        const field = input.expect.field(o);
        if (error?.code !== input.expect.code || error.details?.field !== field) problems.push(`expected 400 ${input.expect.code} on ${field}: ${where}`);
      }
    }
    expect(sent).toBeGreaterThan(0);
    expect(problems).toEqual([]);
  });

  it('states the rule across the privacy routes\' parameters, and the runtime keeps it', async () => {
    const ruled = operations.filter((o) => (o.op as Record<string, unknown>)['x-mallard-query-rule']);
    expect(ruled.map((o) => `${o.method} ${o.path}`).sort()).toEqual(['DELETE /v1/manage/privacy/subject', 'GET /v1/manage/privacy/export']);
    const ajv = new Ajv2020({ strict: false });
    for (const o of ruled) {
      const rule = ajv.compile((o.op as Record<string, object>)['x-mallard-query-rule']);
      for (const query of [{}, { visitor_id: 'v1' }, { user_ref: 'u1' }, { visitor_id: 'v1', user_ref: 'u1' }] as Record<string, string>[]) {
        const jwt = (await signUserToken(h.secrets, org.user_id, org.org_id, h.clock.now(), 3600)).token;
        const res = await h.app.inject({ method: o.method as 'GET', url: `${o.path}?${new URLSearchParams({ site_id: org.site_id, ...query })}`, headers: bearer(jwt) });
        const where = `${o.method} ${o.path} ${JSON.stringify(query)}: ${res.body.slice(0, 200)}`;
        if (rule(query)) expect(res.statusCode, where).toBe(200);
        else expect([res.statusCode, res.json().error.code], where).toEqual([400, 'invalid_input']);
        expect(checker.check({ method: o.method, route: o.path, status: res.statusCode, contentType: String(res.headers['content-type'] ?? ''), body: res.body }), where).toBeNull();
      }
    }
  });

  it('GET /v1/sdk-config declares its ?key= as the credential: 401 without it, as documented', async () => {
    const op = operations.find((o) => o.method === 'GET' && o.path === '/v1/sdk-config')!;
    expect(op.op.security).toEqual([{ publishableKeyQuery: [] }]);
    expect(checker.doc.components).toMatchObject({ securitySchemes: { publishableKeyQuery: { type: 'apiKey', in: 'query', name: 'key' } } });
    for (const url of ['/v1/sdk-config', '/v1/sdk-config?key=', `/v1/sdk-config?key=${org.keys.publishable}`]) {
      const res = await h.app.inject({ method: 'GET', url });
      const answer = { method: 'GET', route: op.path, status: res.statusCode, contentType: String(res.headers['content-type'] ?? ''), body: res.body };
      expect(checker.check(answer), url).toBeNull();
      expect(res.statusCode, url).toBe(url.endsWith(org.keys.publishable) ? 200 : 401);
    }
  });
});
