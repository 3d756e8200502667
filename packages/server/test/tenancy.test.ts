// Tenancy: org B's credentials (a site-scoped secret key, an org-scoped key and the owner's
// JWT) aimed at org A's ids on every route of the sites, members and keys slice. Each is
// refused with 404 (or the documented 401/403 that comes first), never data, and A's records
// are unchanged afterwards, checked through A's own credentials. Both dialects.
import { beforeAll, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { SCOPES } from '../src/auth/api-keys.ts';
import { bearer, type Harness, eachDialect, useHarness, type Org } from './helpers/harness.ts';

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

const STATUS: Record<string, number> = { not_found: 404, jwt_required: 401, org_scope_required: 403 };

let ipCounter = 0;
const freshIp = () => { const n = ++ipCounter; return `10.77.${(n >> 8) & 255}.${n & 255}`; };

async function send(h: Harness, method: Method, url: string, headers: Record<string, string>, payload?: unknown): Promise<LightMyRequestResponse> {
  return h.app.inject({ method, url, headers, remoteAddress: freshIp(), ...(payload === undefined ? {} : { payload: payload as object }) });
}

async function must(res: LightMyRequestResponse, status: number, what: string) {
  if (res.statusCode !== status) throw new Error(`${what}: expected ${status}, got ${res.statusCode} ${res.body}`);
  return res.json().data;
}

interface OrgA {
  org: Org;
  jwt: string;
  ownerMembershipId: string;
  viewer: { membershipId: string; userId: string; email: string };
  secretKeyId: string;
  orgKeyId: string;
  /** Every id, email and key hint of A: none may appear in anything B receives. */
  secrets: string[];
}

interface Snapshot { sites: unknown; members: unknown; keys: unknown; settings: unknown; audit: number }

const B_CREDS = ['bSecret', 'bOrgKey', 'bJwt'] as const;
type BCred = (typeof B_CREDS)[number];

interface Attack {
  name: string;
  method: Method;
  url: (a: OrgA) => string;
  body?: (a: OrgA) => unknown;
  expect: Record<BCred, keyof typeof STATUS>;
}

const keyRoute = { bSecret: 'jwt_required', bOrgKey: 'jwt_required', bJwt: 'not_found' } as const;

const ATTACKS: Attack[] = [
  { name: 'PATCH /v1/manage/site/{A site}', method: 'PATCH', url: (a) => `/v1/manage/site/${a.org.site_id}`, body: () => ({ name: 'Taken by B' }),
    expect: { bSecret: 'not_found', bOrgKey: 'not_found', bJwt: 'not_found' } },
  { name: 'PATCH /v1/manage/site/{A site} (allowed_origins)', method: 'PATCH', url: (a) => `/v1/manage/site/${a.org.site_id}`, body: () => ({ allowed_origins: ['https://evil.example'] }),
    expect: { bSecret: 'not_found', bOrgKey: 'not_found', bJwt: 'not_found' } },
  // Deleting a site needs an org-level credential: a site-scoped key is refused before the lookup.
  { name: 'DELETE /v1/manage/site/{A site}', method: 'DELETE', url: (a) => `/v1/manage/site/${a.org.site_id}`,
    expect: { bSecret: 'org_scope_required', bOrgKey: 'not_found', bJwt: 'not_found' } },
  { name: 'PATCH /v1/manage/members/{A owner}', method: 'PATCH', url: (a) => `/v1/manage/members/${a.ownerMembershipId}`, body: () => ({ role: 'viewer' }), expect: keyRoute },
  { name: 'PATCH /v1/manage/members/{A viewer}', method: 'PATCH', url: (a) => `/v1/manage/members/${a.viewer.membershipId}`, body: () => ({ role: 'owner' }), expect: keyRoute },
  { name: 'DELETE /v1/manage/members/{A viewer}', method: 'DELETE', url: (a) => `/v1/manage/members/${a.viewer.membershipId}`, expect: keyRoute },
  { name: 'DELETE /v1/manage/members/{A owner}', method: 'DELETE', url: (a) => `/v1/manage/members/${a.ownerMembershipId}`, expect: keyRoute },
  { name: 'DELETE /v1/manage/keys/{A site key}', method: 'DELETE', url: (a) => `/v1/manage/keys/${a.secretKeyId}`, expect: keyRoute },
  { name: 'DELETE /v1/manage/keys/{A org key}', method: 'DELETE', url: (a) => `/v1/manage/keys/${a.orgKeyId}`, expect: keyRoute },
  { name: 'GET /v1/manage/keys?site_id={A site}', method: 'GET', url: (a) => `/v1/manage/keys?site_id=${a.org.site_id}`, expect: keyRoute },
  { name: 'POST /v1/manage/keys {site_id: A site, secret}', method: 'POST', url: () => '/v1/manage/keys',
    body: (a) => ({ site_id: a.org.site_id, key_type: 'secret', scopes: [...SCOPES] }), expect: keyRoute },
  { name: 'POST /v1/manage/keys {site_id: A site, publishable}', method: 'POST', url: () => '/v1/manage/keys',
    body: (a) => ({ site_id: a.org.site_id, key_type: 'publishable' }), expect: keyRoute },
  { name: 'GET /v1/query/scores?site_id={A site}', method: 'GET', url: (a) => `/v1/query/scores?site_id=${a.org.site_id}`,
    expect: { bSecret: 'not_found', bOrgKey: 'not_found', bJwt: 'not_found' } },
];

eachDialect('tenancy', ({ name, skip }) => {
  const h = useHarness(name, { raisedLimits: true });
  let a: OrgA;
  let b: Org;
  let bHeaders: Record<BCred, Record<string, string>>;
  let snapshot: Snapshot;

  /** A's state as A sees it, plus A's audit rows (a refused request must write none). */
  async function stateOfA(): Promise<Snapshot> {
    const get = async (url: string) => must(await send(h, 'GET', url, bearer(a.jwt)), 200, `A reads ${url}`);
    const audit = await h.store.db.selectFrom('audit_log').select((eb) => eb.fn.countAll().as('n'))
      .where('org_id', '=', a.org.org_id).executeTakeFirstOrThrow();
    return {
      sites: (await get('/v1/manage/sites')).sites,
      members: (await get('/v1/manage/members')).members,
      // When A's own keys were last used is A's doing, not B's: left out of the comparison.
      keys: ((await get('/v1/manage/keys')).keys as Record<string, unknown>[]).map(({ last_used_at: _used, ...key }) => key),
      settings: await get('/v1/manage/settings'),
      audit: Number(audit.n),
    };
  }

  function expectNothingOfA(body: string) {
    for (const secret of a.secrets) expect(body, `leaks ${secret}`).not.toContain(secret);
  }

  beforeAll(async () => {
    const orgA = await h.org('Tenant A');
    const aJwt = orgA.jwt;
    const viewer = await h.user(orgA, 'viewer');
    const aOrgKey = await h.key(orgA, { scopes: [...SCOPES], name: 'A org key' });
    const members = (await must(await send(h, 'GET', '/v1/manage/members', bearer(aJwt)), 200, 'A members')).members as { id: string; role: string; user_id: string; email: string }[];
    const keys = (await must(await send(h, 'GET', '/v1/manage/keys', bearer(aJwt)), 200, 'A keys')).keys as { id: string; key_type: string; site_id: string | null; key_hint: string }[];
    const owner = members.find((m) => m.role === 'owner')!;
    a = {
      org: orgA,
      jwt: aJwt,
      ownerMembershipId: owner.id,
      viewer: { membershipId: viewer.membershipId, userId: viewer.userId, email: viewer.email },
      secretKeyId: keys.find((k) => k.key_type === 'secret' && k.site_id === orgA.site_id)!.id,
      orgKeyId: aOrgKey.id,
      secrets: [
        orgA.org_id, orgA.site_id, orgA.user_id, orgA.email, viewer.email,
        ...members.flatMap((m) => [m.id, m.user_id, m.email]),
        ...keys.flatMap((k) => [k.id, k.key_hint]),
        orgA.keys.secret, orgA.keys.mcp, orgA.keys.publishable, aOrgKey.key,
      ],
    };
    expect(a.secretKeyId).toBeDefined();

    b = await h.org('Tenant B');
    const bOrgKey = await h.key(b, { scopes: [...SCOPES], name: 'B org key' });
    bHeaders = { bSecret: bearer(b.keys.secret), bOrgKey: bearer(bOrgKey.key), bJwt: bearer(b.jwt) };
    snapshot = await stateOfA();
  });

  for (const attack of ATTACKS) {
    for (const cred of B_CREDS) {
      const code = attack.expect[cred];
      it.skipIf(skip)(`B's ${cred}: ${attack.name} is ${STATUS[code]} ${code}, and A is unchanged`, async () => {
        const res = await send(h, attack.method, attack.url(a), bHeaders[cred], attack.body?.(a));
        expect(res.statusCode, res.body).toBe(STATUS[code]);
        expect(res.json()).toEqual({ data: null, error: expect.objectContaining({ code, status: STATUS[code] }) });
        expectNothingOfA(res.body);
        expect(await stateOfA()).toEqual(snapshot);
        // A's own credentials still work.
        const whoami = await send(h, 'GET', '/v1/query/whoami', bearer(a.org.keys.secret));
        expect(whoami.statusCode).toBe(200);
        expect(whoami.json().data.site.id).toBe(a.org.site_id);
      });
    }
  }

  it.skipIf(skip)('the same requests with B\'s own ids succeed (the 404s above are about tenancy)', async () => {
    const jwt = bHeaders.bJwt;
    expect((await send(h, 'PATCH', `/v1/manage/site/${b.site_id}`, bHeaders.bSecret, { name: 'B renamed' })).statusCode).toBe(200);
    expect((await send(h, 'PATCH', `/v1/manage/site/${b.site_id}`, bHeaders.bOrgKey, { name: 'B renamed' })).statusCode).toBe(200);
    expect((await send(h, 'GET', `/v1/query/scores?site_id=${b.site_id}`, bHeaders.bOrgKey)).statusCode).toBe(200);
    const listed = await send(h, 'GET', `/v1/manage/keys?site_id=${b.site_id}`, jwt);
    expect(listed.statusCode).toBe(200);
    expect(listed.json().data.keys.length).toBeGreaterThanOrEqual(3);
    const created = await send(h, 'POST', '/v1/manage/keys', jwt, { site_id: b.site_id, key_type: 'secret', scopes: ['query:read'] });
    expect(created.statusCode).toBe(201);
    const revoked = await send(h, 'DELETE', `/v1/manage/keys/${created.json().data.id}`, jwt);
    expect(revoked.statusCode).toBe(200);
    const member = await send(h, 'POST', '/v1/manage/members', jwt, { email: `b-member-${Math.random().toString(36).slice(2, 10)}@example.com`, role: 'viewer' });
    expect(member.statusCode).toBe(201);
    expect((await send(h, 'PATCH', `/v1/manage/members/${member.json().data.id}`, jwt, { role: 'member' })).statusCode).toBe(200);
    expect((await send(h, 'DELETE', `/v1/manage/members/${member.json().data.id}`, jwt)).statusCode).toBe(200);
  });

  it.skipIf(skip)('B\'s site lists never show anything of A', async () => {
    for (const cred of B_CREDS) {
      const res = await send(h, 'GET', '/v1/manage/sites', bHeaders[cred]);
      expect(res.statusCode, cred).toBe(200);
      const sites = res.json().data.sites as { id: string; org_id: string }[];
      expect(sites.length, cred).toBeGreaterThanOrEqual(1);
      for (const site of sites) expect(site.org_id, cred).toBe(b.org_id);
      expect(sites.map((s) => s.id), cred).toContain(b.site_id);
      expectNothingOfA(res.body);
    }
    // A site-scoped key sees only its own site.
    const own = await send(h, 'GET', '/v1/manage/sites', bHeaders.bSecret);
    expect(own.json().data.sites.map((s: { id: string }) => s.id)).toEqual([b.site_id]);
  });

  it.skipIf(skip)('B\'s member and key lists never show anything of A', async () => {
    const members = await send(h, 'GET', '/v1/manage/members', bHeaders.bJwt);
    expect(members.statusCode).toBe(200);
    expect(members.json().data.members.map((m: { email: string }) => m.email)).toContain(b.email);
    expectNothingOfA(members.body);

    for (const url of ['/v1/manage/keys', `/v1/manage/keys?site_id=${b.site_id}`]) {
      const keys = await send(h, 'GET', url, bHeaders.bJwt);
      expect(keys.statusCode, url).toBe(200);
      const list = keys.json().data.keys as { org_id: string }[];
      expect(list.length, url).toBeGreaterThanOrEqual(3);
      for (const key of list) expect(key.org_id, url).toBe(b.org_id);
      expectNothingOfA(keys.body);
    }
    // Keys cannot list members or keys at all.
    for (const cred of ['bSecret', 'bOrgKey'] as const) {
      for (const url of ['/v1/manage/members', '/v1/manage/keys']) {
        const res = await send(h, 'GET', url, bHeaders[cred]);
        expect(res.statusCode, `${cred} ${url}`).toBe(401);
        expect(res.json().error.code, `${cred} ${url}`).toBe('jwt_required');
      }
    }
  });

  it.skipIf(skip)('B\'s whoami and settings are B\'s own', async () => {
    for (const cred of B_CREDS) {
      const whoami = await send(h, 'GET', '/v1/query/whoami', bHeaders[cred]);
      expect(whoami.statusCode, cred).toBe(200);
      expect(whoami.json().data.org.id, cred).toBe(b.org_id);
      expectNothingOfA(whoami.body);
      const settings = await send(h, 'GET', '/v1/manage/settings', bHeaders[cred]);
      expect(settings.statusCode, cred).toBe(200);
      expect(settings.json().data.org_id, cred).toBe(b.org_id);
    }
    // B turning duck facts on changes B's settings only.
    const patched = await send(h, 'PATCH', '/v1/manage/settings', bHeaders.bJwt, { duck_facts: true });
    expect(patched.json().data).toMatchObject({ org_id: b.org_id, duck_facts: true });
    expect(await stateOfA()).toEqual(snapshot);
    await send(h, 'PATCH', '/v1/manage/settings', bHeaders.bJwt, { duck_facts: false });
  });
});
