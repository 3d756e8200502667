// Fuzzing every operation of the OpenAPI document with seeded requests (valid, boundary and
// broken ones; see helpers/fuzzer.ts): no answer is a 5xx, every answer is in the envelope
// with a code the document lists for that operation and status (and a body its schema allows),
// nothing of another org ever shows, another org's records are unchanged, and the server is
// healthy afterwards. `npm test` sends FUZZ_REQUESTS (default 1,500) per dialect;
// `npm run fuzz` sends 100,000. FUZZ_SEED picks another sequence.
import { beforeAll, expect, it } from 'vitest';
import { signUserToken } from '../src/auth/jwt.ts';
import { ERROR_STATUS } from '../src/domain/errors.ts';
import { ContractChecker } from './helpers/contract.ts';
import { fuzzRequest, operationsOf, prng, validValue, type FuzzIds, type FuzzOperation } from './helpers/fuzzer.ts';
import { bearer, eachDialect, useHarness, type Org } from './helpers/harness.ts';

const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 1500);
const SEED = Number(process.env.FUZZ_SEED ?? 20261126);

/** The resource a create route makes, named as the fuzzer names path ids. */
const CREATES: Record<string, string> = {
  '/v1/manage/site': 'site', '/v1/manage/webhooks': 'webhook', '/v1/manage/integrations': 'integration', '/v1/manage/keys': 'key',
  '/v1/manage/alert-rules': 'rule', '/v1/manage/deploys': 'deploy', '/v1/manage/annotations': 'annotation',
};

/** What another org must still read after the run, exactly as before it. */
const FOREIGN_READS = ['/v1/manage/webhooks', '/v1/manage/alert-rules', '/v1/manage/integrations', '/v1/manage/keys', '/v1/manage/members', '/v1/manage/sites', '/v1/manage/settings', '/v1/query/deploys'];

eachDialect('Fuzzing every operation from the OpenAPI document', ({ name, skip }) => {
  const h = useHarness(name, { raisedLimits: true });
  let checker: ContractChecker;
  let operations: FuzzOperation[];
  let own: Org;
  /** Whose credentials the foreign-credential probes send. */
  let other: Org;
  /** Whose ids the cross-tenant probes send; nothing of it may show, nothing of it may change. */
  let foreign: Org;
  const ids: FuzzIds = { own: {}, foreign: {} };

  /** Makes a few records of each kind for `org` through the API, with bodies generated from the document. */
  async function seedRecords(org: Org, into: Record<string, string[]>, seed: number) {
    const r = prng(seed);
    // The first site holds the keys the fuzzer sends: it is a site_id to read and write, but
    // never a site to delete (only sites made here are).
    into.site_id = [org.site_id];
    for (const [path, resource] of Object.entries(CREATES)) {
      const op = operations.find((o) => o.method === 'POST' && o.path === path);
      const schema = op?.op.requestBody?.content['application/json']?.schema;
      for (let attempt = 0, made = 0; attempt < 60 && made < 2; attempt++) {
        const body = validValue(schema, r) as Record<string, unknown>;
        if ('site_id' in (schema?.properties ?? {})) body.site_id = org.site_id;
        const res = await h.app.inject({ method: 'POST', url: `${path}?site_id=${org.site_id}`, headers: bearer(org.jwt), payload: body });
        if (res.statusCode === 201 || res.statusCode === 200) {
          (into[resource] ??= []).push(res.json().data.id);
          if (resource === 'site') into.site_id.push(res.json().data.id);
          made++;
        }
      }
    }
    into.member = [(await h.user(org, 'viewer')).membershipId, (await h.user(org, 'member')).membershipId];
  }

  const foreignSnapshot = async () => Promise.all(FOREIGN_READS.map(async (path) => {
    const res = await h.app.inject({ method: 'GET', url: `${path}?site_id=${foreign.site_id}&limit=200`, headers: bearer(foreign.keys.secret) });
    return `${path} ${res.statusCode} ${res.body}`;
  }));

  beforeAll(async () => {
    checker = await ContractChecker.of(h.app);
    operations = operationsOf(checker.doc);
    own = await h.org('Fuzz');
    other = await h.org('Other');
    foreign = await h.org('Canary QZX');
    await seedRecords(own, ids.own, SEED);
    await seedRecords(foreign, ids.foreign, SEED + 1);
  });

  it.skipIf(skip)(`answers ${REQUESTS} fuzzed requests without a 5xx, each in the envelope and as documented`, async () => {
    const before = await foreignSnapshot();
    const r = prng(SEED);
    const failures = new Map<string, string>();
    const statuses = new Map<number, number>();
    const fail = (problem: string, example: string) => { if (!failures.has(problem)) failures.set(problem, example); };
    for (let i = 0; i < REQUESTS; i++) {
      const operation = r.pick(operations);
      const jwt = async (org: Org) => (await signUserToken(h.secrets, org.user_id, org.org_id, h.clock.now(), 3600)).token;
      const request = fuzzRequest(operation, r, ids, {
        own: [await jwt(own), own.keys.secret, own.keys.mcp, own.keys.publishable],
        foreign: [await jwt(other), other.keys.secret],
      });
      // A different client address each time: the failed-login lockout is per address and would
      // otherwise answer every later request with 429.
      const res = await h.app.inject({ method: request.method as 'GET', url: request.url, headers: request.headers, payload: request.payload, remoteAddress: `10.${i >> 16 & 255}.${i >> 8 & 255}.${i & 255}` });
      statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
      const example = `#${i} ${request.kind}: ${request.method} ${request.url.slice(0, 200)} ${request.payload?.slice(0, 200) ?? ''} -> ${res.statusCode} ${res.body.slice(0, 300)}`;
      if (res.statusCode >= 500) fail(`${res.statusCode} on ${operation.method} ${operation.path}`, example);
      const contentType = String(res.headers['content-type'] ?? '');
      // A changed method may name another operation on the same path.
      if (request.operation || checker.doc.paths[operation.path]?.[request.method.toLowerCase()]) {
        const problem = checker.check({ method: request.method, route: operation.path, status: res.statusCode, contentType, body: res.body });
        if (problem) fail(problem, example);
      } else {
        // A method the path does not take: the router's answer, in the envelope.
        const body = res.json() as { data: unknown; error: { code: string; status: number } | null };
        if (!['method_not_allowed', 'not_found', 'invalid_input'].includes(body.error?.code ?? '') || body.error?.status !== res.statusCode) fail(`router answer ${res.statusCode} ${body.error?.code}`, example);
      }
      // Raw by design: the OpenAPI document, MCP's JSON-RPC, and the OAuth endpoints' metadata and
      // error objects (RFC 8414, 9728, 6749; the checker above still holds them to the document).
      const raw = ['/v1/openapi.json', '/v1/mcp', '/.well-known/', '/oauth/'].some((prefix) => request.url.startsWith(prefix));
      if (/^application\/json/.test(contentType) && !raw) {
        const body = res.json() as { data?: unknown; error?: { code: string; status: number } | null };
        if (!('data' in body) || !('error' in body)) fail(`not in the envelope: ${operation.method} ${operation.path}`, example);
        if (body.error && (ERROR_STATUS[body.error.code as keyof typeof ERROR_STATUS] !== res.statusCode || body.error.status !== res.statusCode)) fail(`code and status disagree: ${body.error.code} ${res.statusCode}`, example);
      }
      if (/QZX/.test(res.body)) fail(`another org's data in ${operation.method} ${operation.path}`, example);
    }
    console.log(`fuzz on ${name}: ${REQUESTS} requests, seed ${SEED}; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])))}`);
    expect([...failures].map(([problem, example]) => `${problem}\n    e.g. ${example}`)).toEqual([]);
    // Nothing the fuzzer sent changed the org whose ids it probed.
    expect(await foreignSnapshot()).toEqual(before);
    // And the server is healthy afterwards.
    expect((await h.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    const whoami = await h.app.inject({ method: 'GET', url: '/v1/query/whoami', headers: bearer(foreign.keys.secret) });
    expect(whoami.statusCode).toBe(200);
  }, Math.max(60_000, REQUESTS * 60));
});
