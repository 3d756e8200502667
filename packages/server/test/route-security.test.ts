// Every registered route, as the route table lists it, against the access rule it declares,
// on both dialects. No route is named here: a route added later is covered as soon as it is
// registered, and a route whose request this test cannot build fails it.
// - No credential: 401 missing_auth. Keys of the wrong type or without the scope, and users
//   below the role: the 401/403 the rule decides (jwt_required, org_scope_required,
//   missing_scope, insufficient_role). Credentials the rule admits are served (reads).
// - Org B's site-scoped key, org-scoped key and owner, with A's ids in the path, the query and
//   the body (and again with B's own site but A's records): 404, and nothing of A in the body.
// - A key of A's first site naming A's second site: 403 forbidden.
// - Last, the same requests by a credential of A that the rule admits are served: the 404s
//   above come from tenancy, not from a request that could never succeed.
import type { LightMyRequestResponse } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { roleRank } from '../src/domain/context.ts';
import type { Access } from '../src/http/access.ts';
import type { RouteRule } from '../src/http/route-table.ts';
import { createHarness, eachDialect, useHarness, type Harness } from './helpers/harness.ts';
import { buildRequest, PROOF_ROUTES, type BuiltRequest, type IdSource } from './helpers/route-requests.ts';
import { NO_CREDENTIAL, seedTenantA, seedTenantB, type Credential, type TenantA, type TenantB } from './helpers/two-tenants.ts';

type Refusal = { status: number; code: string };
type Verdict = Refusal | 'admitted';

/** What the access rule answers a credential, in the order DESIGN.md fixes: 401s, then 403s. */
function verdict(access: Access, cred: Credential): Verdict {
  const { surface } = access;
  if (surface === 'public' || (surface === 'auth' && !access.jwtOnly)) return 'admitted';
  if (cred.kind === 'none') return { status: 401, code: 'missing_auth' };
  if (surface === 'ingest') {
    if (cred.kind === 'jwt') return { status: 401, code: 'invalid_key' };
    return cred.scopes.includes('ingest:write') ? 'admitted' : { status: 403, code: 'missing_scope' };
  }
  if (access.jwtOnly && cred.kind === 'key') return { status: 401, code: 'jwt_required' };
  if (access.orgScope && cred.siteScoped) return { status: 403, code: 'org_scope_required' };
  if (cred.kind === 'key') {
    const scopes = access.scopes ?? [];
    if (scopes.length > 0 && !scopes.some((s) => cred.scopes.includes(s))) return { status: 403, code: 'missing_scope' };
  } else if (access.role && roleRank(cred.role!) < roleRank(access.role)) {
    return { status: 403, code: 'insufficient_role' };
  }
  return 'admitted';
}

const isOpen = (access: Access) => verdict(access, NO_CREDENTIAL) === 'admitted';
const isRead = (rule: RouteRule) => rule.method === 'GET' || rule.method === 'HEAD';
const name = (rule: RouteRule) => `${rule.method} ${rule.url}`;

// The routes, read from the route table of an app built for that purpose (the tests are
// declared before any harness exists); each dialect's own app must list the same.
const ROUTES: RouteRule[] = await (async () => {
  const h = await createHarness('sqlite');
  try {
    return h.app.routeTable.rules();
  } finally {
    await h.close();
  }
})();

// Controls mutate A: reads first, then writes, deletes last and A's site very last.
const CONTROL_ORDER = (rule: RouteRule) => (rule.method === 'DELETE' ? (rule.url.includes('/site/') ? 3 : 2) : isRead(rule) ? 0 : 1);

let ipCounter = 0;
/** Each request from its own address: the failed-authentication limit (per IP) never interferes. */
const freshIp = () => { const n = ++ipCounter; return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`; };

eachDialect('route security', ({ name: dialect }) => {
  const h: Harness = useHarness(dialect, { raisedLimits: true });
  let a: TenantA;
  let b: TenantB;

  beforeAll(async () => {
    a = await seedTenantA(h);
    b = await seedTenantB(h);
  });

  const aIds: IdSource = (kind) => a.ids[kind] ?? missingKind(kind);
  const missingKind = (kind: string): never => {
    throw new Error(`Org A has no record of kind "${kind}": seed one in test/helpers/two-tenants.ts`);
  };

  async function send(req: BuiltRequest, cred: Credential): Promise<LightMyRequestResponse> {
    return h.app.inject({
      method: req.method as 'GET', url: req.url, headers: { ...req.headers, ...(await cred.headers()) }, remoteAddress: freshIp(),
      ...(req.body === undefined ? {} : { payload: req.body as object }),
    });
  }

  /** The status, and for a body-carrying answer the envelope's code, as the rule says. */
  function expectRefusal(res: LightMyRequestResponse, rule: RouteRule, expected: Refusal, who: string) {
    const where = `${who} on ${name(rule)}`;
    expect(res.statusCode, `${where}: ${res.body}`).toBe(expected.status);
    if (rule.method === 'HEAD') return;
    expect(res.json(), where).toEqual({ data: null, error: expect.objectContaining({ code: expected.code, status: expected.status }) });
  }

  function expectNothingOf(secrets: string[], res: LightMyRequestResponse, where: string) {
    for (const secret of secrets) expect(res.body.includes(secret), `${where} shows ${secret}: ${res.body.slice(0, 500)}`).toBe(false);
  }

  it('every route of this app is one the tests were generated for, and each declares an access rule', () => {
    const here = h.app.routeTable.rules();
    expect(here.map(name)).toEqual(ROUTES.map(name));
    for (const rule of here) {
      expect(['public', 'auth', 'ingest', 'query', 'manage'], name(rule)).toContain(rule.access?.surface);
    }
  });

  it('each rule fits the surface its path is on, as docs/api.md sets out', () => {
    for (const { method, url, access } of ROUTES) {
      const where = `${method} ${url}`;
      // The MCP endpoint reads what /query reads, so it is on the query surface (docs/api.md).
      const surface = url.startsWith('/v1/query/') || url === '/v1/mcp' ? 'query' : url.startsWith('/v1/manage/') ? 'manage'
        : url.startsWith('/v1/auth/') ? 'auth' : (url === '/v1/ingest' || url === '/v1/ingest/clips') && method === 'POST' ? 'ingest' : 'public';
      expect(access.surface, where).toBe(surface);
      if (surface === 'query') expect(access, where).toMatchObject({ scopes: ['query:read', 'mcp:read'], role: 'viewer' });
      if (surface === 'manage') {
        expect(access.scopes, where).toContain('manage:write');
        expect(access.role, where).toBeDefined();
        // Viewers read; changing anything takes a member or more.
        if (!isRead({ method } as RouteRule)) expect(roleRank(access.role!), where).toBeGreaterThanOrEqual(roleRank('member'));
        // A leaked key can never mint keys or add people.
        if (/^\/v1\/manage\/(keys|members)\b/.test(url)) expect(access.jwtOnly, where).toBe(true);
      }
    }
  });

  for (const rule of ROUTES) {
    describe(name(rule), () => {
      if (isOpen(rule.access)) {
        it('is open: answered without a credential, never with a server error or anything of A', async () => {
          const req = buildRequest(rule, aIds);
          const res = await send(req, NO_CREDENTIAL);
          expect(res.statusCode, res.body).toBeLessThan(500);
          expectNothingOf(a.secrets, res, name(rule));
        });
        return;
      }

      it('no credential: 401 missing_auth', async () => {
        expectRefusal(await send(buildRequest(rule, aIds), NO_CREDENTIAL), rule, { status: 401, code: 'missing_auth' }, 'no credential');
      });

      it('keys of the wrong type or without the scope, and users below the role: the 401 or 403 of the rule', async () => {
        let refused = 0;
        for (const cred of a.credentials) {
          const expected = verdict(rule.access, cred);
          if (expected === 'admitted') continue;
          refused++;
          expectRefusal(await send(buildRequest(rule, aIds), cred), rule, expected, cred.label);
        }
        expect(refused, 'some credential of A is refused').toBeGreaterThan(0);
      });

      // A read that needs proof no built request carries is checked by the controls below instead.
      if (isRead(rule) && !PROOF_ROUTES.has(name(rule))) {
        it('credentials the rule admits are served', async () => {
          for (const cred of a.credentials) {
            if (verdict(rule.access, cred) !== 'admitted') continue;
            const res = await send(buildRequest(rule, aIds), cred);
            expect(res.statusCode, `${cred.label}: ${res.body}`).toBe(200);
          }
        });
      }

      it("another org's credentials with A's ids: 404 not_found (or the rule's refusal), nothing of A", async () => {
        for (const cred of b.credentials) {
          const req = buildRequest(rule, aIds);
          const res = await send(req, cred);
          const ruled = verdict(rule.access, cred);
          if (ruled !== 'admitted') expectRefusal(res, rule, ruled, cred.label);
          else if (req.kinds.size > 0) expectRefusal(res, rule, { status: 404, code: 'not_found' }, `${cred.label} with A's ids`);
          else if (PROOF_ROUTES.has(name(rule))) expect(res.statusCode, `${cred.label} on a route asking proof: ${res.body}`).toBeLessThan(500);
          else expect(res.statusCode, `${cred.label} on a route naming no record: ${res.body}`).toBeLessThan(300);
          expectNothingOf(a.secrets, res, `${cred.label} on ${name(rule)}`);
        }
      });

      // Which kinds of record the route names decides the cases below; a route whose request
      // cannot be built fails here instead of being left out.
      let kinds = new Set<string>();
      try {
        kinds = buildRequest(rule, (kind) => kind).kinds;
      } catch (err) {
        it('has a request this test can build', () => { throw err; });
      }
      if (kinds.has('site') && kinds.size > 1) {
        it("another org's credentials with their own site and A's records: 404 not_found, nothing of A", async () => {
          for (const cred of b.credentials) {
            const req = buildRequest(rule, (kind) => (kind === 'site' ? b.org.site_id : aIds(kind)));
            const res = await send(req, cred);
            const ruled = verdict(rule.access, cred);
            expectRefusal(res, rule, ruled === 'admitted' ? { status: 404, code: 'not_found' } : ruled, `${cred.label} with its own site`);
            expectNothingOf(a.secrets, res, `${cred.label} on ${name(rule)}`);
          }
        });
      }

      if (kinds.has('site')) {
        it('a key of the first site naming a sibling site: 403 forbidden (or the rule\'s refusal)', async () => {
          const req = buildRequest(rule, (kind) => (kind === 'site' ? a.siblingSiteId : aIds(kind)));
          const res = await send(req, a.siteKey);
          const ruled = verdict(rule.access, a.siteKey);
          expectRefusal(res, rule, ruled === 'admitted' ? { status: 403, code: 'forbidden' } : ruled, a.siteKey.label);
          expectNothingOf(a.siblingSecrets, res, name(rule));
        });
      }
    });
  }

  describe('controls: the same requests by a credential of A the rule admits are served', () => {
    const guarded = ROUTES.filter((rule) => !isOpen(rule.access));
    for (const rule of [...guarded].sort((x, y) => CONTROL_ORDER(x) - CONTROL_ORDER(y))) {
      it(name(rule), async () => {
        const cred = [a.owner, ...a.credentials].find((c) => verdict(rule.access, c) === 'admitted');
        expect(cred, 'some credential of A is admitted').toBeDefined();
        const audited = async () => Number((await h.store.db.selectFrom('audit_log').select((eb) => eb.fn.countAll().as('n'))
          .where('org_id', '=', a.org.org_id).executeTakeFirstOrThrow()).n);
        const before = await audited();
        const res = await send(buildRequest(rule, aIds), cred!);
        // A tracker's API is never reachable from tests: its upstream_error comes after tenancy.
        if (res.statusCode === 502) expect(res.json().error.code, res.body).toBe('upstream_error');
        // Admitted, and refused only for the proof no built body can carry.
        else if (PROOF_ROUTES.has(name(rule))) expect([400, 409], `${cred!.label}: ${res.body}`).toContain(res.statusCode);
        else expect(res.statusCode, `${cred!.label}: ${res.body}`).toBeLessThan(300);
        // Every write through /v1/manage that is served leaves a row in the audit log.
        if (rule.access.surface === 'manage' && !isRead(rule) && res.statusCode < 300) {
          expect(await audited(), `${name(rule)} wrote no audit row`).toBeGreaterThan(before);
        }
      });
    }
  });
});
