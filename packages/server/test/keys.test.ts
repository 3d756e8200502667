// API keys: created only with a user token, shown once, stored as an HMAC, typed (secret,
// mcp, publishable), site- or org-scoped, revocable and expiring at once. Both dialects.
import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { KEY_CACHE_MS, LAST_USED_EVERY_MS } from '../src/domain/authenticate.ts';
import { bearer, eachDialect, useHarness, auditRows } from './helpers/harness.ts';

const HOUR = 60 * 60 * 1000;
const ALL_SCOPES = ['ingest:write', 'query:read', 'manage:write', 'mcp:read', 'webhook:write'];

interface KeyRecord { id: string; org_id: string; site_id: string | null; key_type: string; name: string | null; scopes: string[]; key_hint: string; created_by: string | null; created_at: string; expires_at: string | null; last_used_at: string | null; status: string }

/** Every string anywhere inside a JSON value. */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(strings);
  if (value && typeof value === 'object') return Object.values(value).flatMap(strings);
  return [];
}

eachDialect('API keys', ({ name, skip }) => {
  // Each test in its own minute: failed-authentication counters never carry over.
  const h = useHarness(name, { raisedLimits: true, newMinuteEachTest: true });

  async function setup() {
    const org = await h.org('Keys');
    return { org, jwt: org.jwt };
  }

  const create = (jwt: string, payload: Record<string, unknown>) =>
    h.app.inject({ method: 'POST', url: '/v1/manage/keys', headers: bearer(jwt), payload });
  const whoami = (token: string, query = '') => h.app.inject({ method: 'GET', url: `/v1/query/whoami${query}`, headers: bearer(token) });
  const listKeys = (jwt: string, query = '') => h.app.inject({ method: 'GET', url: `/v1/manage/keys${query}`, headers: bearer(jwt) });

  it.skipIf(skip)('a secret key needs scopes; with them it is 201 with the record and the raw key', async () => {
    const { org, jwt } = await setup();
    const missing = await create(jwt, { key_type: 'secret', site_id: org.site_id });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error).toMatchObject({ code: 'invalid_input', details: { field: 'scopes' } });
    const empty = await create(jwt, { key_type: 'secret', site_id: org.site_id, scopes: [] });
    expect(empty.statusCode).toBe(400);
    const unknown = await create(jwt, { key_type: 'secret', site_id: org.site_id, scopes: ['root'] });
    expect(unknown.statusCode).toBe(400);

    const before = await auditRows(h.store, org.org_id);
    const res = await create(jwt, { key_type: 'secret', site_id: org.site_id, scopes: ['query:read', 'webhook:write'], name: 'ci' });
    expect(res.statusCode).toBe(201);
    const key = res.json().data;
    expect(key).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/), org_id: org.org_id, site_id: org.site_id, key_type: 'secret', name: 'ci',
      scopes: ['query:read', 'webhook:write'], key_hint: expect.any(String), created_by: org.email,
      created_at: new Date(h.clock.now()).toISOString(), expires_at: null, last_used_at: null, status: 'active',
      key: expect.stringMatching(/^svc_sec_[A-Za-z0-9]{32,}$/),
    });
    expect(key.key_hint).toBe(`${key.key.slice(0, 8)}...${key.key.slice(-4)}`);

    const after = await auditRows(h.store, org.org_id);
    expect(after.length - before.length).toBe(1);
    expect(after.at(-1)).toMatchObject({ action: 'key.created', actor_type: 'user', actor_id: org.user_id, target_type: 'api_key', target_id: key.id, site_id: org.site_id });
    expect(JSON.stringify(after.at(-1))).not.toContain(key.key);
  });

  it.skipIf(skip)('a created key works at once with exactly its scopes', async () => {
    const { org, jwt } = await setup();
    const key = (await create(jwt, { key_type: 'secret', site_id: org.site_id, scopes: ['query:read'] })).json().data.key as string;
    const who = await whoami(key);
    expect(who.statusCode).toBe(200);
    expect(who.json().data).toEqual({
      org: { id: org.org_id, name: expect.any(String) },
      site: { id: org.site_id, name: 'Keys site', url: expect.any(String) },
      key_type: 'secret',
      scopes: ['query:read'],
    });
    const scores = await h.app.inject({ method: 'GET', url: '/v1/query/scores', headers: bearer(key) });
    expect(scores.statusCode).toBe(200);
  });

  it.skipIf(skip)('a key with only query:read is 403 missing_scope on /manage/settings', async () => {
    const { org, jwt } = await setup();
    const key = (await create(jwt, { key_type: 'secret', site_id: org.site_id, scopes: ['query:read'] })).json().data.key as string;
    for (const req of [
      { method: 'GET' as const, url: '/v1/manage/settings' },
      { method: 'PATCH' as const, url: '/v1/manage/settings', payload: { duck_facts: true } },
    ]) {
      const res = await h.app.inject({ ...req, headers: bearer(key) });
      expect(res.statusCode).toBe(403);
      expect(res.json().error).toMatchObject({ code: 'missing_scope', status: 403 });
    }
    const settings = await h.store.db.selectFrom('org_settings').select('duck_facts').where('org_id', '=', org.org_id).executeTakeFirstOrThrow();
    expect(settings.duck_facts).toBe(0);
    // The same route is fine for a key holding manage:write.
    const manage = (await create(jwt, { key_type: 'secret', site_id: org.site_id, scopes: ['manage:write'] })).json().data.key as string;
    expect((await h.app.inject({ method: 'GET', url: '/v1/manage/settings', headers: bearer(manage) })).statusCode).toBe(200);
    const noQuery = await whoami(manage);
    expect(noQuery.statusCode).toBe(403);
    expect(noQuery.json().error.code).toBe('missing_scope');
  });

  it.skipIf(skip)('an mcp key always holds mcp:read, may add manage:write, nothing else', async () => {
    const { org, jwt } = await setup();
    const plain = await create(jwt, { key_type: 'mcp', site_id: org.site_id });
    expect(plain.statusCode).toBe(201);
    expect(plain.json().data).toMatchObject({ key_type: 'mcp', scopes: ['mcp:read'], key: expect.stringMatching(/^svc_mcp_[A-Za-z0-9]{32,}$/) });
    const who = await whoami(plain.json().data.key);
    expect(who.statusCode).toBe(200);
    expect(who.json().data).toMatchObject({ key_type: 'mcp', scopes: ['mcp:read'] });

    const more = await create(jwt, { key_type: 'mcp', site_id: org.site_id, scopes: ['manage:write'] });
    expect(more.statusCode).toBe(201);
    expect([...more.json().data.scopes].sort()).toEqual(['manage:write', 'mcp:read']);

    const bad = await create(jwt, { key_type: 'mcp', site_id: org.site_id, scopes: ['ingest:write'] });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toMatchObject({ code: 'invalid_input', details: { field: 'scopes' } });
  });

  it.skipIf(skip)('a publishable key needs site_id and holds only ingest:write', async () => {
    const { org, jwt } = await setup();
    const noSite = await create(jwt, { key_type: 'publishable' });
    expect(noSite.statusCode).toBe(400);
    expect(noSite.json().error).toMatchObject({ code: 'invalid_input', details: { field: 'site_id' } });
    const wider = await create(jwt, { key_type: 'publishable', site_id: org.site_id, scopes: ['ingest:write', 'query:read'] });
    expect(wider.statusCode).toBe(400);
    expect(wider.json().error.details.field).toBe('scopes');

    const res = await create(jwt, { key_type: 'publishable', site_id: org.site_id });
    expect(res.statusCode).toBe(201);
    const key = res.json().data;
    expect(key).toMatchObject({ key_type: 'publishable', site_id: org.site_id, scopes: ['ingest:write'], key: expect.stringMatching(/^svc_pub_[A-Za-z0-9]{32,}$/) });
    // It ingests, and it can neither read nor manage.
    const query = await whoami(key.key);
    expect(query.statusCode).toBe(403);
    expect(query.json().error.code).toBe('missing_scope');
    const manage = await h.app.inject({ method: 'GET', url: '/v1/manage/sites', headers: bearer(key.key) });
    expect(manage.statusCode).toBe(403);
    expect(manage.json().error.code).toBe('missing_scope');
  });

  it.skipIf(skip)('a key without site_id is org-scoped: whoami shows site null and site routes need site_id', async () => {
    const { org, jwt } = await setup();
    const res = await create(jwt, { key_type: 'secret', scopes: ['query:read', 'manage:write'] });
    expect(res.statusCode).toBe(201);
    expect(res.json().data.site_id).toBeNull();
    const key = res.json().data.key as string;

    const who = await whoami(key);
    expect(who.statusCode).toBe(200);
    expect(who.json().data).toEqual({ org: { id: org.org_id, name: expect.any(String) }, site: null, key_type: 'secret', scopes: ['query:read', 'manage:write'] });

    const without = await h.app.inject({ method: 'GET', url: '/v1/query/scores', headers: bearer(key) });
    expect(without.statusCode).toBe(400);
    expect(without.json().error.code).toBe('missing_site_id');
    const withSite = await h.app.inject({ method: 'GET', url: `/v1/query/scores?site_id=${org.site_id}`, headers: bearer(key) });
    expect(withSite.statusCode).toBe(200);
    expect(withSite.json().data.site.site_id).toBe(org.site_id);

    // Another org's site stays invisible to it.
    const other = await h.org('Foreign');
    const foreign = await h.app.inject({ method: 'GET', url: `/v1/query/scores?site_id=${other.site_id}`, headers: bearer(key) });
    expect(foreign.statusCode).toBe(404);
  });

  it.skipIf(skip)('site_id must be a site of the caller\'s org', async () => {
    const { jwt } = await setup();
    const other = await h.org('Foreign');
    const foreign = await create(jwt, { key_type: 'secret', site_id: other.site_id, scopes: ['query:read'] });
    expect(foreign.statusCode).toBe(404);
    const unknown = await create(jwt, { key_type: 'secret', site_id: randomUUID(), scopes: ['query:read'] });
    expect(unknown.statusCode).toBe(404);
    const malformed = await create(jwt, { key_type: 'secret', site_id: 'site-1', scopes: ['query:read'] });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().error.code).toBe('invalid_uuid');
  });

  it.skipIf(skip)('the raw key appears only in the creation response; lists show key_hint, storage holds an HMAC', async () => {
    const { org, jwt } = await setup();
    const created = (await create(jwt, { key_type: 'secret', site_id: org.site_id, scopes: ['query:read'], name: 'listed' })).json().data;
    const raw = created.key as string;

    const res = await listKeys(jwt);
    expect(res.statusCode).toBe(200);
    const keys = res.json().data.keys as KeyRecord[];
    // Three bootstrap keys and the new one.
    expect(keys).toHaveLength(4);
    for (const k of keys) {
      expect(k).not.toHaveProperty('key');
      expect(k).not.toHaveProperty('key_hash');
      expect(Object.keys(k).sort()).toEqual(['created_at', 'created_by', 'expires_at', 'id', 'key_hint', 'key_type', 'last_used_at', 'name', 'org_id', 'scopes', 'site_id', 'status']);
      expect(k.key_hint).toMatch(/^svc_(sec|mcp|pub)_\.\.\.[A-Za-z0-9]{4}$/);
    }
    const listed = keys.find((k) => k.id === created.id)!;
    const { key: _raw, ...record } = created;
    expect(listed).toEqual(record);
    expect(strings(res.json())).not.toContain(raw);
    expect(res.body).not.toContain(raw);
    for (const bootstrapKey of Object.values(org.keys)) expect(res.body).not.toContain(bootstrapKey);

    const stored = await h.store.db.selectFrom('api_keys').selectAll().where('id', '=', created.id).executeTakeFirstOrThrow();
    expect(stored.key_hash).not.toBe(raw);
    expect(stored.key_hash).not.toContain(raw.slice(8));
    expect(strings(stored)).not.toContain(raw);
    // The hash is keyed: it is not a plain digest anyone could recompute.
    expect(stored.key_hash).toBe(h.secrets.hmac('api-key', raw));

    const filtered = await listKeys(jwt, `?site_id=${org.site_id}`);
    expect((filtered.json().data.keys as KeyRecord[]).map((k) => k.id)).toContain(created.id);
  });

  it.skipIf(skip)('GET /manage/keys?site_id lists that site\'s keys only; org-scoped keys appear in the full list', async () => {
    const { org, jwt } = await setup();
    const site2 = (await h.app.inject({ method: 'POST', url: '/v1/manage/site', headers: bearer(jwt), payload: { name: 'Two', url: 'https://two.example' } })).json().data;
    const onTwo = (await create(jwt, { key_type: 'publishable', site_id: site2.id })).json().data;
    const orgWide = (await create(jwt, { key_type: 'mcp' })).json().data;

    const two = (await listKeys(jwt, `?site_id=${site2.id}`)).json().data.keys as KeyRecord[];
    expect(two.map((k) => k.id)).toEqual([onTwo.id]);
    const one = (await listKeys(jwt, `?site_id=${org.site_id}`)).json().data.keys as KeyRecord[];
    expect(one).toHaveLength(3);
    expect(one.every((k) => k.site_id === org.site_id)).toBe(true);
    const all = (await listKeys(jwt)).json().data.keys as KeyRecord[];
    expect(all.map((k) => k.id)).toEqual(expect.arrayContaining([onTwo.id, orgWide.id]));
    expect(all).toHaveLength(5);
  });

  it.skipIf(skip)('DELETE revokes at once: 200 {id, deleted:true}, then 401 invalid_key and gone from the list', async () => {
    const { org, jwt } = await setup();
    const created = (await create(jwt, { key_type: 'secret', site_id: org.site_id, scopes: ['query:read'] })).json().data;
    expect((await whoami(created.key)).statusCode).toBe(200);
    const before = await auditRows(h.store, org.org_id);

    const res = await h.app.inject({ method: 'DELETE', url: `/v1/manage/keys/${created.id}`, headers: bearer(jwt) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ data: { id: created.id, deleted: true }, error: null });

    const after = await auditRows(h.store, org.org_id);
    expect(after.length - before.length).toBe(1);
    // The row names the key's site, as its key.created row does (and as the CLI's revocation does).
    expect(after.at(-1)).toMatchObject({ action: 'key.revoked', actor_type: 'user', actor_id: org.user_id, target_type: 'api_key', target_id: created.id, site_id: org.site_id });

    const who = await whoami(created.key);
    expect(who.statusCode).toBe(401);
    expect(who.json().error.code).toBe('invalid_key');
    const ids = ((await listKeys(jwt)).json().data.keys as KeyRecord[]).map((k) => k.id);
    expect(ids).not.toContain(created.id);
    // Other keys keep working; revoking twice is 404 and writes no audit row.
    expect((await whoami(org.keys.secret)).statusCode).toBe(200);
    const again = await h.app.inject({ method: 'DELETE', url: `/v1/manage/keys/${created.id}`, headers: bearer(jwt) });
    expect(again.statusCode).toBe(404);
    expect(await auditRows(h.store, org.org_id)).toHaveLength(after.length);
  });

  it.skipIf(skip)('a bootstrap key can be revoked too, and another org\'s key cannot be', async () => {
    const { org, jwt } = await setup();
    const other = await setup();
    const otherKeys = ((await listKeys(other.jwt)).json().data.keys as KeyRecord[]);
    const foreign = await h.app.inject({ method: 'DELETE', url: `/v1/manage/keys/${otherKeys[0].id}`, headers: bearer(jwt) });
    expect(foreign.statusCode).toBe(404);
    expect((await whoami(other.org.keys.secret)).statusCode).toBe(200);

    const mine = ((await listKeys(jwt)).json().data.keys as KeyRecord[]).find((k) => k.key_type === 'secret')!;
    expect((await h.app.inject({ method: 'DELETE', url: `/v1/manage/keys/${mine.id}`, headers: bearer(jwt) })).statusCode).toBe(200);
    const who = await whoami(org.keys.secret);
    expect(who.statusCode).toBe(401);
    expect(who.json().error.code).toBe('invalid_key');
  });

  it.skipIf(skip)('expires_at is honoured: the key works until then, and is 401 expired_key from then on', async () => {
    const { org, jwt } = await setup();
    const past = await create(jwt, { key_type: 'secret', site_id: org.site_id, scopes: ['query:read'], expires_at: new Date(h.clock.now() - 1000).toISOString() });
    expect(past.statusCode).toBe(400);
    expect(past.json().error).toMatchObject({ code: 'invalid_input', details: { field: 'expires_at' } });
    const notADate = await create(jwt, { key_type: 'secret', site_id: org.site_id, scopes: ['query:read'], expires_at: 'tomorrow' });
    expect(notADate.statusCode).toBe(400);

    const expiresAt = h.clock.now() + HOUR;
    const res = await create(jwt, { key_type: 'secret', site_id: org.site_id, scopes: ['query:read'], expires_at: new Date(expiresAt).toISOString() });
    expect(res.statusCode).toBe(201);
    expect(res.json().data.expires_at).toBe(new Date(expiresAt).toISOString());
    const key = res.json().data.key as string;

    expect((await whoami(key)).statusCode).toBe(200);
    h.clock.advance(HOUR - 1000);
    expect((await whoami(key)).statusCode).toBe(200);
    h.clock.advance(1000);
    const expired = await whoami(key);
    expect(expired.statusCode).toBe(401);
    expect(expired.json()).toEqual({ data: null, error: { code: 'expired_key', message: expect.any(String), status: 401 } });
  });

  it.skipIf(skip)('lists give each key its status: active until expires_at, expired from then on (as authentication decides), revoked with include_revoked', async () => {
    const { org, jwt } = await setup();
    const expiresAt = h.clock.now() + HOUR;
    const created = await create(jwt, { key_type: 'secret', site_id: org.site_id, scopes: ['query:read'], expires_at: new Date(expiresAt).toISOString() });
    expect(created.json().data.status).toBe('active');
    const id = created.json().data.id as string;
    const statusOf = async () => {
      const keys = (await listKeys(jwt)).json().data.keys as KeyRecord[];
      return Object.fromEntries(keys.map((k) => [k.id, k.status]));
    };
    const bootstrapIds = ((await listKeys(jwt)).json().data.keys as KeyRecord[]).filter((k) => k.id !== id).map((k) => k.id);
    expect(await statusOf()).toEqual({ ...Object.fromEntries(bootstrapIds.map((k) => [k, 'active'])), [id]: 'active' });
    h.clock.advance(HOUR - 1000);
    expect((await statusOf())[id]).toBe('active');
    h.clock.advance(1000);
    // The moment the key is refused, the list says why; the keys without expiry stay active.
    expect((await whoami(created.json().data.key)).json().error.code).toBe('expired_key');
    expect(await statusOf()).toEqual({ ...Object.fromEntries(bootstrapIds.map((k) => [k, 'active'])), [id]: 'expired' });

    // Revoked (also when expired): gone from the list, shown with include_revoked=true.
    expect((await h.app.inject({ method: 'DELETE', url: `/v1/manage/keys/${id}`, headers: bearer(jwt) })).statusCode).toBe(200);
    expect(await statusOf()).not.toHaveProperty(id);
    expect(((await listKeys(jwt, '?include_revoked=false')).json().data.keys as KeyRecord[]).map((k) => k.id)).not.toContain(id);
    const withRevoked = (await listKeys(jwt, '?include_revoked=true')).json().data.keys as KeyRecord[];
    expect(Object.fromEntries(withRevoked.map((k) => [k.id, k.status]))).toEqual({ ...Object.fromEntries(bootstrapIds.map((k) => [k, 'active'])), [id]: 'revoked' });
    const bad = await listKeys(jwt, '?include_revoked=maybe');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toMatchObject({ code: 'invalid_input', details: { field: 'include_revoked' } });
  });

  it.skipIf(skip)('keys are minted only with a user token (401 jwt_required) and by admins', async () => {
    const { org, jwt } = await setup();
    for (const key of [org.keys.secret, org.keys.mcp]) {
      const res = await h.app.inject({ method: 'POST', url: '/v1/manage/keys', headers: bearer(key), payload: { key_type: 'secret', scopes: ['query:read'] } });
      expect(res.statusCode).toBe(401);
      expect(res.json().error.code).toBe('jwt_required');
      const list = await h.app.inject({ method: 'GET', url: '/v1/manage/keys', headers: bearer(key) });
      expect(list.json().error.code).toBe('jwt_required');
    }
    // A member (below admin) is refused.
    const invite = await h.app.inject({ method: 'POST', url: '/v1/manage/members', headers: bearer(jwt), payload: { email: `m-${randomUUID()}@example.com`, role: 'member' } });
    const { email, invitation } = invite.json().data;
    expect((await h.app.inject({ method: 'POST', url: '/v1/auth/set-password', payload: { token: invitation.token, password: 'member-password' } })).statusCode).toBe(200);
    const memberJwt = await h.login(email, 'member-password');
    const refused = await create(memberJwt, { key_type: 'secret', scopes: ['query:read'] });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.code).toBe('insufficient_role');
    const count = await h.store.db.selectFrom('api_keys').select('id').where('org_id', '=', org.org_id).execute();
    expect(count).toHaveLength(3);
  });

  it.skipIf(skip)('the bootstrap secret key holds every scope', async () => {
    const { org } = await setup();
    const who = await whoami(org.keys.secret);
    expect([...who.json().data.scopes].sort()).toEqual([...ALL_SCOPES].sort());
  });

  it.skipIf(skip)('last_used_at: null until first use, then the time of use, written at most once a minute per key', async () => {
    const { org, jwt } = await setup();
    const created = (await create(jwt, { key_type: 'secret', site_id: org.site_id, scopes: ['query:read'] })).json().data;
    const lastUsed = async () => ((await listKeys(jwt)).json().data.keys as KeyRecord[]).find((k) => k.id === created.id)!.last_used_at;
    expect(await lastUsed()).toBeNull();
    const first = h.clock.now();
    expect((await whoami(created.key)).statusCode).toBe(200);
    expect(await lastUsed()).toBe(new Date(first).toISOString());
    // Within the minute (and past the cache), no new write.
    h.clock.advance(LAST_USED_EVERY_MS - 1000);
    expect((await whoami(created.key)).statusCode).toBe(200);
    expect(await lastUsed()).toBe(new Date(first).toISOString());
    h.clock.advance(1000);
    expect((await whoami(created.key)).statusCode).toBe(200);
    expect(await lastUsed()).toBe(new Date(first + LAST_USED_EVERY_MS).toISOString());
  });

  it.skipIf(skip)('a key revoked by another process stops working once the short cache runs out; one revoked here stops at once', async () => {
    const { org, jwt } = await setup();
    const created = (await create(jwt, { key_type: 'secret', site_id: org.site_id, scopes: ['query:read'] })).json().data;
    expect((await whoami(created.key)).statusCode).toBe(200);
    // Another process revokes it (straight in the shared store): this process trusts its cache briefly.
    await h.store.db.updateTable('api_keys').set({ revoked_at: h.clock.now() }).where('id', '=', created.id).execute();
    expect((await whoami(created.key)).statusCode).toBe(200);
    h.clock.advance(KEY_CACHE_MS);
    const after = await whoami(created.key);
    expect(after.statusCode).toBe(401);
    expect(after.json().error.code).toBe('invalid_key');
    // A site renamed here shows at once on a cached key.
    expect((await whoami(org.keys.secret)).json().data.site.name).toBe('Keys site');
    const renamed = await h.app.inject({ method: 'PATCH', url: `/v1/manage/site/${org.site_id}`, headers: bearer(jwt), payload: { name: 'Renamed' } });
    expect(renamed.statusCode).toBe(200);
    expect((await whoami(org.keys.secret)).json().data.site.name).toBe('Renamed');
  });
});
