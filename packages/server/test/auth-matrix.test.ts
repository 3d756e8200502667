// The authentication and authorization matrix: every kind of credential against one route
// of each surface (query, manage, JWT-only, org-scope-only), with the exact status and code
// of every cell; then role changes, removed members, sibling sites and the failed-auth limit.
// Both dialects.
import { beforeAll, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { SCOPES } from '../src/auth/api-keys.ts';
import { signUserToken } from '../src/auth/jwt.ts';
import { Secrets } from '../src/auth/secrets.ts';
import { bearer, type Harness, eachDialect, useHarness, type Org } from './helpers/harness.ts';

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

const MINUTE = 60_000;

const STATUS: Record<string, number> = {
  ok: 200, created: 201,
  missing_auth: 401, invalid_key: 401, expired_key: 401, invalid_jwt: 401, jwt_required: 401,
  forbidden: 403, missing_scope: 403, insufficient_role: 403, org_scope_required: 403,
};

// Each matrix cell comes from its own client address, so the failed-authentication limit
// (30 a minute per IP) never interferes with the matrix; the limit has its own test below.
let ipCounter = 0;
const freshIp = () => { const n = ++ipCounter; return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`; };

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const randomBase62 = (n: number) => {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let out = '';
  for (let i = 0; i < n; i++) out += alphabet[Math.floor(Math.random() * alphabet.length)];
  return out;
};

interface Ctx {
  h: Harness;
  org: Org;
  ownerJwt: string;
  headers: Record<Cred, Record<string, string>>;
  roleEmails: Record<'owner' | 'admin' | 'member' | 'viewer', string>;
}

const CREDS = [
  'none', 'basic', 'emptyBearer', 'bareBearer', 'unknownSecret', 'garbage', 'garbageDotted',
  'secretAll', 'secretQuery', 'mcp', 'publishable', 'orgSecret', 'expiredKey', 'revokedKey', 'deletedSiteKey',
  'owner', 'admin', 'member', 'viewer', 'expiredJwt', 'loggedOutJwt', 'forgedJwt', 'algNoneJwt', 'tamperedJwt',
] as const;
type Cred = (typeof CREDS)[number];

interface RouteDef {
  name: string;
  method: Method;
  url: (c: Ctx) => string;
  body?: (c: Ctx, cred: Cred) => unknown;
  /** Whether a success changes something (one audit row) and a failure must change nothing. */
  write: boolean;
  /** Extra checks on a successful response. */
  onSuccess?: (c: Ctx, cred: Cred, data: any) => void | Promise<void>;
}

const ROUTES: RouteDef[] = [
  {
    name: 'GET /v1/query/whoami', method: 'GET', write: false, url: () => '/v1/query/whoami',
    onSuccess: (c, cred, data) => {
      expect(data.org).toEqual({ id: c.org.org_id, name: expect.any(String) });
      if (cred === 'owner' || cred === 'admin' || cred === 'member' || cred === 'viewer') {
        expect(data).toMatchObject({ key_type: 'jwt', site: null, role: cred, user: { email: c.roleEmails[cred] } });
        expect([...data.scopes].sort()).toEqual([...SCOPES].sort());
      } else if (cred === 'orgSecret') {
        expect(data).toMatchObject({ key_type: 'secret', site: null });
        expect([...data.scopes].sort()).toEqual([...SCOPES].sort());
      } else if (cred === 'secretAll') {
        expect(data).toMatchObject({ key_type: 'secret', site: { id: c.org.site_id } });
        expect([...data.scopes].sort()).toEqual([...SCOPES].sort());
      } else if (cred === 'secretQuery') {
        expect(data).toMatchObject({ key_type: 'secret', site: { id: c.org.site_id }, scopes: ['query:read'] });
      } else if (cred === 'mcp') {
        expect(data).toMatchObject({ key_type: 'mcp', site: { id: c.org.site_id }, scopes: ['mcp:read'] });
      } else {
        throw new Error(`unexpected success for ${cred}`);
      }
      if (data.key_type !== 'jwt') expect(data).not.toHaveProperty('role');
    },
  },
  {
    name: 'PATCH /v1/manage/site/{id}', method: 'PATCH', write: true,
    url: (c) => `/v1/manage/site/${c.org.site_id}`,
    body: (_c, cred) => ({ name: `Renamed by ${cred}` }),
    onSuccess: (c, cred, data) => { expect(data).toMatchObject({ id: c.org.site_id, org_id: c.org.org_id, name: `Renamed by ${cred}` }); },
  },
  {
    name: 'GET /v1/manage/settings', method: 'GET', write: false, url: () => '/v1/manage/settings',
    onSuccess: (c, _cred, data) => { expect(data).toMatchObject({ org_id: c.org.org_id, duck_facts: false }); },
  },
  {
    name: 'PATCH /v1/manage/settings', method: 'PATCH', write: true, url: () => '/v1/manage/settings',
    body: () => ({ duck_facts: false }),
    onSuccess: (c, _cred, data) => { expect(data).toMatchObject({ org_id: c.org.org_id, duck_facts: false }); },
  },
  {
    name: 'GET /v1/manage/keys', method: 'GET', write: false, url: () => '/v1/manage/keys',
    onSuccess: (c, _cred, data) => {
      expect(data.keys.length).toBeGreaterThanOrEqual(3);
      for (const key of data.keys) {
        expect(key.org_id).toBe(c.org.org_id);
        expect(key).not.toHaveProperty('key');
        expect(key).not.toHaveProperty('key_hash');
      }
    },
  },
  {
    name: 'POST /v1/manage/members', method: 'POST', write: true, url: () => '/v1/manage/members',
    body: (_c, cred) => ({ email: `invitee-${cred.toLowerCase()}-${randomBase62(6).toLowerCase()}@example.com`, role: 'viewer' }),
    onSuccess: (_c, _cred, data) => {
      expect(data).toMatchObject({ role: 'viewer', status: 'invited', invitation: { token: expect.any(String) } });
    },
  },
  {
    name: 'POST /v1/manage/site', method: 'POST', write: true, url: () => '/v1/manage/site',
    body: (_c, cred) => ({ name: `Created by ${cred}`, url: 'https://created.example' }),
    onSuccess: (c, cred, data) => { expect(data).toMatchObject({ org_id: c.org.org_id, name: `Created by ${cred}` }); },
  },
  {
    name: 'GET /v1/manage/members', method: 'GET', write: false, url: () => '/v1/manage/members',
    onSuccess: (c, _cred, data) => {
      const emails = data.members.map((m: { email: string }) => m.email);
      for (const email of Object.values(c.roleEmails)) expect(emails).toContain(email);
    },
  },
];

// Columns follow ROUTES: whoami, PATCH site, GET settings, PATCH settings, GET keys,
// POST members, POST site, GET members.
const all = (code: string) => Array(8).fill(code) as string[];
const MATRIX: Record<Cred, string[]> = {
  none: all('missing_auth'),
  basic: all('missing_auth'),
  emptyBearer: all('missing_auth'),
  bareBearer: all('missing_auth'),
  unknownSecret: all('invalid_key'),
  garbage: all('invalid_key'),
  garbageDotted: all('invalid_jwt'),
  secretAll: ['ok', 'ok', 'ok', 'ok', 'jwt_required', 'jwt_required', 'org_scope_required', 'jwt_required'],
  secretQuery: ['ok', 'missing_scope', 'missing_scope', 'missing_scope', 'jwt_required', 'jwt_required', 'org_scope_required', 'jwt_required'],
  mcp: ['ok', 'missing_scope', 'missing_scope', 'missing_scope', 'jwt_required', 'jwt_required', 'org_scope_required', 'jwt_required'],
  publishable: ['missing_scope', 'missing_scope', 'missing_scope', 'missing_scope', 'jwt_required', 'jwt_required', 'org_scope_required', 'jwt_required'],
  orgSecret: ['ok', 'ok', 'ok', 'ok', 'jwt_required', 'jwt_required', 'created', 'jwt_required'],
  expiredKey: all('expired_key'),
  revokedKey: all('invalid_key'),
  deletedSiteKey: all('invalid_key'),
  owner: ['ok', 'ok', 'ok', 'ok', 'ok', 'created', 'created', 'ok'],
  admin: ['ok', 'ok', 'ok', 'ok', 'ok', 'created', 'created', 'ok'],
  member: ['ok', 'insufficient_role', 'ok', 'insufficient_role', 'insufficient_role', 'insufficient_role', 'insufficient_role', 'ok'],
  viewer: ['ok', 'insufficient_role', 'ok', 'insufficient_role', 'insufficient_role', 'insufficient_role', 'insufficient_role', 'ok'],
  expiredJwt: all('invalid_jwt'),
  loggedOutJwt: all('invalid_jwt'),
  forgedJwt: all('invalid_jwt'),
  algNoneJwt: all('invalid_jwt'),
  tamperedJwt: all('invalid_jwt'),
};

async function send(h: Harness, method: Method, url: string, headers: Record<string, string>, payload?: unknown, ip = freshIp()): Promise<LightMyRequestResponse> {
  return h.app.inject({ method, url, headers, remoteAddress: ip, ...(payload === undefined ? {} : { payload: payload as object }) });
}

async function must(res: LightMyRequestResponse, status: number, what: string) {
  if (res.statusCode !== status) throw new Error(`${what}: expected ${status}, got ${res.statusCode} ${res.body}`);
  return res.json().data;
}

async function auditCount(h: Harness): Promise<number> {
  const row = await h.store.db.selectFrom('audit_log').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

eachDialect('auth matrix', ({ name, skip }) => {
  const h = useHarness(name, { raisedLimits: true });
  let ctx: Ctx;

  beforeAll(async () => {
    const org = await h.org('Matrix');
    const ownerJwt = org.jwt;
    const admin = await h.user(org, 'admin');
    const member = await h.user(org, 'member');
    const viewer = await h.user(org, 'viewer');

    const secretQuery = await h.key(org, { scopes: ['query:read'], siteId: org.site_id });
    const orgSecret = await h.key(org, { scopes: [...SCOPES] });
    const revoked = await h.key(org, { scopes: [...SCOPES], siteId: org.site_id });
    const expiring = await h.key(org, { scopes: [...SCOPES], siteId: org.site_id, expiresAt: h.clock.now() + MINUTE });
    const doomedSite = await must(await send(h, 'POST', '/v1/manage/site', bearer(ownerJwt), { name: 'Doomed', url: 'https://doomed.example' }), 201, 'create site');
    const doomedKey = await h.key(org, { scopes: [...SCOPES], siteId: doomedSite.id });
    const expiringJwt = (await must(await send(h, 'POST', '/v1/auth/login', {}, { email: org.email, password: org.password, expires_in: 900 }), 200, 'short login')).token as string;
    const loggedOutJwt = await h.login(org.email, org.password);

    // Every credential that is about to go bad works first, so each cell tests the change.
    for (const token of [revoked.key, expiring.key, doomedKey.key, expiringJwt, loggedOutJwt]) {
      await must(await send(h, 'GET', '/v1/query/whoami', bearer(token)), 200, 'credential works before it goes bad');
    }
    await must(await send(h, 'DELETE', `/v1/manage/keys/${revoked.id}`, bearer(ownerJwt)), 200, 'revoke key');
    await must(await send(h, 'DELETE', `/v1/manage/site/${doomedSite.id}`, bearer(ownerJwt)), 200, 'delete site');
    await must(await send(h, 'POST', '/v1/auth/logout', bearer(loggedOutJwt)), 200, 'logout');
    // Past the key's expires_at and the 15-minute token's lifetime; the 8-hour tokens live on.
    h.clock.advance(16 * MINUTE);

    const forged = await signUserToken(new Secrets('not-the-server-secret-not-the-server-secret'), org.user_id, org.org_id, h.clock.now(), 3600);
    const iat = Math.floor(h.clock.now() / 1000);
    const algNone = `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url({ iss: 'mallard', sub: org.user_id, org: org.org_id, jti: 'x', iat, exp: iat + 3600 })}.`;
    // A viewer's genuine token with its subject swapped for the owner's, signature kept.
    const [vHead, vPayload, vSig] = viewer.jwt.split('.');
    const claims = JSON.parse(Buffer.from(vPayload, 'base64url').toString('utf8'));
    const tampered = `${vHead}.${b64url({ ...claims, sub: org.user_id })}.${vSig}`;

    const headers: Record<Cred, Record<string, string>> = {
      none: {},
      basic: { authorization: `Basic ${Buffer.from(`${org.email}:${org.password}`).toString('base64')}` },
      emptyBearer: { authorization: 'Bearer ' },
      bareBearer: { authorization: 'Bearer' },
      unknownSecret: bearer(`svc_sec_${randomBase62(40)}`),
      garbage: bearer('definitely-not-a-credential'),
      garbageDotted: bearer('not.a.jwt'),
      secretAll: bearer(org.keys.secret),
      secretQuery: bearer(secretQuery.key),
      mcp: bearer(org.keys.mcp),
      publishable: bearer(org.keys.publishable),
      orgSecret: bearer(orgSecret.key),
      expiredKey: bearer(expiring.key),
      revokedKey: bearer(revoked.key),
      deletedSiteKey: bearer(doomedKey.key),
      owner: bearer(ownerJwt),
      admin: bearer(admin.jwt),
      member: bearer(member.jwt),
      viewer: bearer(viewer.jwt),
      expiredJwt: bearer(expiringJwt),
      loggedOutJwt: bearer(loggedOutJwt),
      forgedJwt: bearer(forged.token),
      algNoneJwt: bearer(algNone),
      tamperedJwt: bearer(tampered),
    };
    ctx = { h, org, ownerJwt, headers, roleEmails: { owner: org.email, admin: admin.email, member: member.email, viewer: viewer.email } };
  });

  it('the matrix covers every credential against every route', () => {
    expect(Object.keys(MATRIX).sort()).toEqual([...CREDS].sort());
    for (const row of Object.values(MATRIX)) expect(row).toHaveLength(ROUTES.length);
  });

  for (const cred of CREDS) {
    ROUTES.forEach((route, i) => {
      const expected = MATRIX[cred][i];
      it.skipIf(skip)(`${cred} on ${route.name} is ${STATUS[expected]} ${expected}`, async () => {
        const before = await auditCount(h);
        const res = await send(h, route.method, route.url(ctx), ctx.headers[cred], route.body?.(ctx, cred));
        const body = res.json();
        expect(res.statusCode, res.body).toBe(STATUS[expected]);
        if (expected === 'ok' || expected === 'created') {
          expect(body.error).toBeNull();
          await route.onSuccess?.(ctx, cred, body.data);
          expect(await auditCount(h)).toBe(before + (route.write ? 1 : 0));
        } else {
          expect(body).toEqual({ data: null, error: expect.objectContaining({ code: expected, status: STATUS[expected], message: expect.any(String) }) });
          // A refused request changes nothing.
          expect(await auditCount(h)).toBe(before);
        }
      });
    });
  }

  it.skipIf(skip)('a refused rename leaves the site as it was', async () => {
    const site = () => h.store.db.selectFrom('sites').select('name').where('id', '=', ctx.org.site_id).executeTakeFirstOrThrow();
    const name = (await site()).name;
    for (const cred of ['secretQuery', 'mcp', 'publishable', 'member', 'viewer', 'revokedKey', 'expiredKey', 'forgedJwt'] as const) {
      const res = await send(h, 'PATCH', `/v1/manage/site/${ctx.org.site_id}`, ctx.headers[cred], { name: `Hijacked by ${cred}` });
      expect(res.statusCode, cred).toBeGreaterThanOrEqual(401);
      expect((await site()).name).toBe(name);
    }
  });

  it.skipIf(skip)('a role change takes effect at once on an existing token', async () => {
    const org = await h.org('Roles');
    const ownerJwt = org.jwt;
    const admin = await h.user(org, 'admin');
    const patchSettings = () => send(h, 'PATCH', '/v1/manage/settings', bearer(admin.jwt), { duck_facts: false });
    expect((await patchSettings()).statusCode).toBe(200);
    expect((await send(h, 'GET', '/v1/manage/keys', bearer(admin.jwt))).statusCode).toBe(200);

    const demoted = await send(h, 'PATCH', `/v1/manage/members/${admin.membershipId}`, bearer(ownerJwt), { role: 'viewer' });
    expect(demoted.statusCode).toBe(200);
    expect(demoted.json().data).toMatchObject({ id: admin.membershipId, role: 'viewer' });

    const refused = await patchSettings();
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.code).toBe('insufficient_role');
    const keys = await send(h, 'GET', '/v1/manage/keys', bearer(admin.jwt));
    expect(keys.statusCode).toBe(403);
    expect(keys.json().error.code).toBe('insufficient_role');
    const whoami = await send(h, 'GET', '/v1/query/whoami', bearer(admin.jwt));
    expect(whoami.json().data.role).toBe('viewer');
    expect((await send(h, 'GET', '/v1/manage/settings', bearer(admin.jwt))).statusCode).toBe(200);

    const promoted = await send(h, 'PATCH', `/v1/manage/members/${admin.membershipId}`, bearer(ownerJwt), { role: 'admin' });
    expect(promoted.statusCode).toBe(200);
    expect((await patchSettings()).statusCode).toBe(200);
    expect((await send(h, 'GET', '/v1/query/whoami', bearer(admin.jwt))).json().data.role).toBe('admin');
  });

  it.skipIf(skip)('a removed member\'s token is invalid_jwt at once', async () => {
    const org = await h.org('Removed');
    const ownerJwt = org.jwt;
    const gone = await h.user(org, 'admin');
    expect((await send(h, 'GET', '/v1/query/whoami', bearer(gone.jwt))).statusCode).toBe(200);

    const removed = await send(h, 'DELETE', `/v1/manage/members/${gone.membershipId}`, bearer(ownerJwt));
    expect(removed.statusCode).toBe(200);
    expect(removed.json().data).toEqual({ id: gone.membershipId, deleted: true });

    for (const [method, url, payload] of [
      ['GET', '/v1/query/whoami', undefined],
      ['GET', '/v1/manage/settings', undefined],
      ['GET', '/v1/manage/members', undefined],
      ['POST', '/v1/manage/members', { email: `late-${randomBase62(6).toLowerCase()}@example.com`, role: 'viewer' }],
    ] as const) {
      const res = await send(h, method, url, bearer(gone.jwt), payload);
      expect(res.statusCode, `${method} ${url}`).toBe(401);
      expect(res.json().error.code, `${method} ${url}`).toBe('invalid_jwt');
    }
    // No longer a member anywhere: logging in again fails too.
    const login = await send(h, 'POST', '/v1/auth/login', {}, { email: gone.email, password: gone.password });
    expect(login.statusCode).toBe(401);
    expect(login.json().error.code).toBe('invalid_credentials');
    const members = await send(h, 'GET', '/v1/manage/members', bearer(ownerJwt));
    expect(members.json().data.members.map((m: { id: string }) => m.id)).not.toContain(gone.membershipId);
  });

  it.skipIf(skip)('a site-scoped key naming a sibling site of its own org is 403 forbidden', async () => {
    const org = await h.org('Siblings');
    const ownerJwt = org.jwt;
    const sibling = await must(await send(h, 'POST', '/v1/manage/site', bearer(ownerJwt), { name: 'Sibling', url: 'https://sibling.example' }), 201, 'sibling');

    const patch = await send(h, 'PATCH', `/v1/manage/site/${sibling.id}`, bearer(org.keys.secret), { name: 'Taken over' });
    expect(patch.statusCode).toBe(403);
    expect(patch.json().error.code).toBe('forbidden');
    const scores = await send(h, 'GET', `/v1/query/scores?site_id=${sibling.id}`, bearer(org.keys.secret));
    expect(scores.statusCode).toBe(403);
    expect(scores.json().error.code).toBe('forbidden');
    const mcpScores = await send(h, 'GET', `/v1/query/scores?site_id=${sibling.id}`, bearer(org.keys.mcp));
    expect(mcpScores.statusCode).toBe(403);
    expect(mcpScores.json().error.code).toBe('forbidden');

    // Its own site still works, the sibling is untouched and invisible to it.
    expect((await send(h, 'GET', `/v1/query/scores?site_id=${org.site_id}`, bearer(org.keys.secret))).statusCode).toBe(200);
    const sites = await send(h, 'GET', '/v1/manage/sites', bearer(org.keys.secret));
    expect(sites.statusCode).toBe(200);
    expect(sites.json().data.sites.map((s: { id: string }) => s.id)).toEqual([org.site_id]);
    const all = await send(h, 'GET', '/v1/manage/sites', bearer(ownerJwt));
    expect(all.json().data.sites.find((s: { id: string }) => s.id === sibling.id)).toMatchObject({ name: 'Sibling' });
    // An org-level credential may use either site.
    const byOwner = await send(h, 'PATCH', `/v1/manage/site/${sibling.id}`, bearer(ownerJwt), { name: 'Sibling renamed' });
    expect(byOwner.statusCode).toBe(200);
  });

  it.skipIf(skip)('failed authentications are limited per IP: the 31st in a minute is 429, even with a valid key', async () => {
    const ip = '198.51.100.31';
    const bad = [{}, bearer(`svc_sec_${randomBase62(40)}`), bearer('x.y.z'), { authorization: 'Basic Zm9vOmJhcg==' }];
    // Start at the top of a minute so all 31 attempts share one window.
    h.clock.set(Math.ceil((h.clock.now() + 1) / MINUTE) * MINUTE);
    for (let i = 0; i < 30; i++) {
      const res = await send(h, 'GET', '/v1/query/whoami', bad[i % bad.length], undefined, ip);
      expect(res.statusCode, `attempt ${i + 1}`).toBe(401);
    }
    const blocked = await send(h, 'GET', '/v1/query/whoami', bearer(ctx.org.keys.secret), undefined, ip);
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json().error).toMatchObject({ code: 'rate_limited', status: 429, details: { reset_at: new Date(h.clock.now() + MINUTE).toISOString() } });
    expect(Number(blocked.headers['retry-after'])).toBe(60);
    const blockedJwt = await send(h, 'GET', '/v1/manage/settings', ctx.headers.owner, undefined, ip);
    expect(blockedJwt.statusCode).toBe(429);
    expect(blockedJwt.json().error.code).toBe('rate_limited');
    const blockedBad = await send(h, 'GET', '/v1/query/whoami', bad[1], undefined, ip);
    expect(blockedBad.statusCode).toBe(429);
    expect(blockedBad.json().error.code).toBe('rate_limited');

    // Another client address is not affected.
    expect((await send(h, 'GET', '/v1/query/whoami', bearer(ctx.org.keys.secret), undefined, '198.51.100.32')).statusCode).toBe(200);

    // A new minute lets the valid key through again, and failures count afresh.
    h.clock.advance(MINUTE);
    const again = await send(h, 'GET', '/v1/query/whoami', bearer(ctx.org.keys.secret), undefined, ip);
    expect(again.statusCode).toBe(200);
    expect(again.json().data.org.id).toBe(ctx.org.org_id);
    const failsAgain = await send(h, 'GET', '/v1/query/whoami', bad[1], undefined, ip);
    expect(failsAgain.statusCode).toBe(401);
    expect(failsAgain.json().error.code).toBe('invalid_key');
  });
});
