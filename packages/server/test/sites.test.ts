// Sites: create (org-level credentials only), list, partial update, delete (hide, revoke keys
// at once, purge data afterwards), and exactly one audit row per write in the same
// transaction. Both dialects.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { beforeAll, expect, it } from 'vitest';
import { purgeDeletedSites } from '../src/jobs/purge-sites.ts';
import type { Store } from '../src/store/db.ts';
import { bearer, eachDialect, useHarness, type Org, auditRows } from './helpers/harness.ts';
import { seedSiteRows, siteRowCounts } from './helpers/site-rows.ts';


async function keyIdOf(store: Store, orgId: string, type: string) {
  const row = await store.db.selectFrom('api_keys').select('id').where('org_id', '=', orgId)
    .where('key_type', '=', type).where('name', '=', `bootstrap ${type}`).executeTakeFirstOrThrow();
  return row.id;
}

eachDialect('sites', ({ name, skip }) => {
  // Keep every test in its own minute, so the failed-authentication limiter never carries over.
  const h = useHarness(name, { raisedLimits: true, newMinuteEachTest: true });

  /** A fresh org, its owner's JWT and an org-scoped key with manage:write made through the API. */
  async function setup() {
    const org = await h.org('Sites');
    const jwt = org.jwt;
    const res = await h.app.inject({ method: 'POST', url: '/v1/manage/keys', headers: bearer(jwt), payload: { key_type: 'secret', scopes: ['manage:write', 'query:read'] } });
    expect(res.statusCode).toBe(201);
    expect(res.json().data.site_id).toBeNull();
    return { org, jwt, orgKey: res.json().data.key as string, orgKeyId: res.json().data.id as string };
  }

  const createSite = (token: string, payload: unknown) =>
    h.app.inject({ method: 'POST', url: '/v1/manage/site', headers: bearer(token), payload: payload as object });
  const listSites = (token: string) => h.app.inject({ method: 'GET', url: '/v1/manage/sites', headers: bearer(token) });

  it.skipIf(skip)('the owner JWT creates a site: 201 with the record, one audit row naming the user', async () => {
    const { org, jwt } = await setup();
    const before = await auditRows(h.store, org.org_id);
    const res = await createSite(jwt, { name: '  Shop  ', url: 'https://shop.example/app', allowed_origins: ['https://shop.example/path', 'https://shop.example'] });
    expect(res.statusCode).toBe(201);
    const site = res.json().data;
    expect(res.json().error).toBeNull();
    expect(site).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/),
      org_id: org.org_id,
      name: 'Shop',
      url: 'https://shop.example/app',
      allowed_origins: ['https://shop.example'],
      // A new site keeps raw data for the instance's period (site-retention.test.ts sets its own).
      retention_days: null,
      effective_retention_days: 90,
      max_retention_days: 90,
      // Clips and snapshots (issue 28): kept 30 days, 50 MiB a day.
      clip_retention_days: 30,
      clip_daily_bytes: 50 * 1024 * 1024,
      created_at: new Date(h.clock.now()).toISOString(),
      updated_at: new Date(h.clock.now()).toISOString(),
    });
    const stored = await h.store.db.selectFrom('sites').selectAll().where('id', '=', site.id).executeTakeFirstOrThrow();
    expect(stored).toMatchObject({ org_id: org.org_id, name: 'Shop', deleted_at: null });

    const after = await auditRows(h.store, org.org_id);
    expect(after.length - before.length).toBe(1);
    const row = after.find((r) => r.action === 'site.created');
    expect(row).toMatchObject({ actor_type: 'user', actor_id: org.user_id, target_type: 'site', target_id: site.id, site_id: site.id });
  });

  it.skipIf(skip)('an org-scoped key creates a site, audited with the key as actor', async () => {
    const { org, orgKey, orgKeyId } = await setup();
    const before = await auditRows(h.store, org.org_id);
    const res = await createSite(orgKey, { name: 'Docs', url: 'http://docs.example' });
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toMatchObject({ org_id: org.org_id, name: 'Docs', url: 'http://docs.example', allowed_origins: [] });
    const after = await auditRows(h.store, org.org_id);
    expect(after.length - before.length).toBe(1);
    expect(after.at(-1)).toMatchObject({ action: 'site.created', actor_type: 'key', actor_id: orgKeyId, target_id: res.json().data.id });
  });

  it.skipIf(skip)('a site-scoped key cannot create or delete sites (403 org_scope_required) and nothing is written', async () => {
    const { org } = await setup();
    const before = await auditRows(h.store, org.org_id);
    const res = await createSite(org.keys.secret, { name: 'Nope', url: 'https://nope.example' });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({ data: null, error: { code: 'org_scope_required', message: expect.any(String), status: 403 } });
    const del = await h.app.inject({ method: 'DELETE', url: `/v1/manage/site/${org.site_id}`, headers: bearer(org.keys.secret) });
    expect(del.statusCode).toBe(403);
    expect(del.json().error.code).toBe('org_scope_required');
    const sites = await h.store.db.selectFrom('sites').select(['id', 'deleted_at']).where('org_id', '=', org.org_id).execute();
    expect(sites).toEqual([{ id: org.site_id, deleted_at: null }]);
    expect(await auditRows(h.store, org.org_id)).toHaveLength(before.length);
  });

  it.skipIf(skip)('create validates its body and a failing create leaves no site and no audit row', async () => {
    const { org, jwt } = await setup();
    const before = await auditRows(h.store, org.org_id);
    const cases: [unknown, string][] = [
      [{ name: 'x' }, 'url'],
      [{ url: 'https://x.example' }, 'name'],
      [{ name: 'x', url: 'ftp://x.example' }, 'url'],
      [{ name: 'x', url: 'https://user:pw@x.example' }, 'url'],
      [{ name: '   ', url: 'https://x.example' }, 'name'],
      [{ name: 'a\u0007b', url: 'https://x.example' }, 'name'],
      [{ name: 'x', url: 'https://x.example', owner: 'me' }, 'owner'],
      [{ name: 'x', url: 'https://x.example', allowed_origins: ['javascript:alert(1)'] }, 'allowed_origins'],
    ];
    for (const [payload, field] of cases) {
      const res = await createSite(jwt, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'invalid_input', details: { field } });
    }
    const sites = await h.store.db.selectFrom('sites').select('id').where('org_id', '=', org.org_id).execute();
    expect(sites).toHaveLength(1);
    expect(await auditRows(h.store, org.org_id)).toHaveLength(before.length);
  });

  it.skipIf(skip)('GET /manage/sites lists the org\'s sites; a site-scoped key sees only its own', async () => {
    const { org, jwt } = await setup();
    const other = await h.org('Other');
    const created = await createSite(jwt, { name: 'Second', url: 'https://second.example' });
    const secondId = created.json().data.id;

    const res = await listSites(jwt);
    expect(res.statusCode).toBe(200);
    const sites = res.json().data.sites as { id: string; org_id: string; name: string; url: string }[];
    expect(sites.map((s) => s.id)).toEqual([org.site_id, secondId]);
    expect(sites.every((s) => s.org_id === org.org_id)).toBe(true);
    expect(sites.map((s) => s.id)).not.toContain(other.site_id);
    expect(sites[1]).toMatchObject({ name: 'Second', url: 'https://second.example', allowed_origins: [] });

    const scoped = await listSites(org.keys.secret);
    expect(scoped.statusCode).toBe(200);
    expect(scoped.json().data.sites.map((s: { id: string }) => s.id)).toEqual([org.site_id]);
  });

  it.skipIf(skip)('PATCH is partial: a new name leaves the url alone; 200 with the record and one audit row', async () => {
    const { org, jwt } = await setup();
    const created = (await createSite(jwt, { name: 'Old', url: 'https://keep.example/x', allowed_origins: ['https://keep.example'] })).json().data;
    const createdAt = h.clock.now();
    h.clock.advance(5_000);
    const before = await auditRows(h.store, org.org_id);

    const res = await h.app.inject({ method: 'PATCH', url: `/v1/manage/site/${created.id}`, headers: bearer(jwt), payload: { name: 'New' } });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toEqual({
      ...created,
      name: 'New',
      created_at: new Date(createdAt).toISOString(),
      updated_at: new Date(h.clock.now()).toISOString(),
    });
    const stored = await h.store.db.selectFrom('sites').selectAll().where('id', '=', created.id).executeTakeFirstOrThrow();
    expect(stored).toMatchObject({ name: 'New', url: 'https://keep.example/x' });

    const url = await h.app.inject({ method: 'PATCH', url: `/v1/manage/site/${created.id}`, headers: bearer(jwt), payload: { url: 'https://moved.example' } });
    expect(url.statusCode).toBe(200);
    expect(url.json().data).toMatchObject({ name: 'New', url: 'https://moved.example', allowed_origins: ['https://keep.example'] });

    const after = await auditRows(h.store, org.org_id);
    expect(after.length - before.length).toBe(2);
    expect(after.slice(-2).map((r) => [r.action, r.actor_type, r.actor_id, r.target_id])).toEqual([
      ['site.updated', 'user', org.user_id, created.id],
      ['site.updated', 'user', org.user_id, created.id],
    ]);
  });

  it.skipIf(skip)('a site-scoped key may PATCH its own site, not a sibling (403) nor another org\'s (404)', async () => {
    const { org, jwt } = await setup();
    const other = await h.org('Other');
    const sibling = (await createSite(jwt, { name: 'Sibling', url: 'https://sib.example' })).json().data;
    const own = await h.app.inject({ method: 'PATCH', url: `/v1/manage/site/${org.site_id}`, headers: bearer(org.keys.secret), payload: { name: 'Renamed by key' } });
    expect(own.statusCode).toBe(200);
    expect(own.json().data.name).toBe('Renamed by key');
    const sib = await h.app.inject({ method: 'PATCH', url: `/v1/manage/site/${sibling.id}`, headers: bearer(org.keys.secret), payload: { name: 'x' } });
    expect(sib.statusCode).toBe(403);
    expect(sib.json().error.code).toBe('forbidden');
    const foreign = await h.app.inject({ method: 'PATCH', url: `/v1/manage/site/${other.site_id}`, headers: bearer(jwt), payload: { name: 'x' } });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().error.code).toBe('not_found');
    const unknown = await h.app.inject({ method: 'PATCH', url: `/v1/manage/site/${randomUUID()}`, headers: bearer(jwt), payload: { name: 'x' } });
    expect(unknown.statusCode).toBe(404);
    const stored = await h.store.db.selectFrom('sites').select('name').where('id', '=', other.site_id).executeTakeFirstOrThrow();
    expect(stored.name).toBe('Other site');
  });

  it.skipIf(skip)('PATCH rejects bad values and an empty object, leaving the site and the audit log unchanged', async () => {
    const { org, jwt } = await setup();
    const before = await auditRows(h.store, org.org_id);
    for (const payload of [{}, { url: 'notaurl' }, { name: '' }, { name: 'ok', color: 'red' }, { url: 42 }]) {
      const res = await h.app.inject({ method: 'PATCH', url: `/v1/manage/site/${org.site_id}`, headers: bearer(jwt), payload });
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().error.code).toBe('invalid_input');
    }
    const stored = await h.store.db.selectFrom('sites').select(['name', 'url']).where('id', '=', org.site_id).executeTakeFirstOrThrow();
    expect(stored).toEqual({ name: 'Sites site', url: expect.stringMatching(/^https:\/\/site\d+\.example$/) });
    expect(await auditRows(h.store, org.org_id)).toHaveLength(before.length);
  });

  it.skipIf(skip)('DELETE: 200 {id, deleted:true}; the site leaves the lists, its keys fail at once, PATCH and DELETE are 404', async () => {
    const { org, jwt, orgKey } = await setup();
    const keep = (await createSite(jwt, { name: 'Keep', url: 'https://keep.example' })).json().data;
    expect((await h.app.inject({ method: 'GET', url: '/v1/query/whoami', headers: bearer(org.keys.mcp) })).statusCode).toBe(200);
    const before = await auditRows(h.store, org.org_id);

    const res = await h.app.inject({ method: 'DELETE', url: `/v1/manage/site/${org.site_id}`, headers: bearer(jwt) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ data: { id: org.site_id, deleted: true }, error: null });

    const after = await auditRows(h.store, org.org_id);
    expect(after.length - before.length).toBe(1);
    expect(after.at(-1)).toMatchObject({ action: 'site.deleted', actor_type: 'user', actor_id: org.user_id, target_id: org.site_id });

    const list = await listSites(jwt);
    expect(list.json().data.sites.map((s: { id: string }) => s.id)).toEqual([keep.id]);
    const byKey = await listSites(orgKey);
    expect(byKey.json().data.sites.map((s: { id: string }) => s.id)).toEqual([keep.id]);

    for (const key of [org.keys.secret, org.keys.mcp]) {
      const who = await h.app.inject({ method: 'GET', url: '/v1/query/whoami', headers: bearer(key) });
      expect(who.statusCode).toBe(401);
      expect(who.json().error.code).toBe('invalid_key');
    }
    const ingest = await h.app.inject({ method: 'GET', url: '/v1/query/whoami', headers: bearer(org.keys.publishable) });
    expect(ingest.statusCode).toBe(401);

    const patch = await h.app.inject({ method: 'PATCH', url: `/v1/manage/site/${org.site_id}`, headers: bearer(jwt), payload: { name: 'ghost' } });
    expect(patch.statusCode).toBe(404);
    expect(patch.json().error.code).toBe('not_found');
    const again = await h.app.inject({ method: 'DELETE', url: `/v1/manage/site/${org.site_id}`, headers: bearer(jwt) });
    expect(again.statusCode).toBe(404);
    const scores = await h.app.inject({ method: 'GET', url: `/v1/query/scores?site_id=${org.site_id}`, headers: bearer(orgKey) });
    expect(scores.statusCode).toBe(404);

    // The org-level credentials and the other site are untouched.
    const still = await h.app.inject({ method: 'PATCH', url: `/v1/manage/site/${keep.id}`, headers: bearer(orgKey), payload: { name: 'Kept' } });
    expect(still.statusCode).toBe(200);
    expect(await auditRows(h.store, org.org_id)).toHaveLength(after.length + 1);
  });

  it.skipIf(skip)('an org-scoped key cannot delete another org\'s site: 404, and nothing changes', async () => {
    const { orgKey } = await setup();
    const other = await h.org('Victim');
    const res = await h.app.inject({ method: 'DELETE', url: `/v1/manage/site/${other.site_id}`, headers: bearer(orgKey) });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('not_found');
    const who = await h.app.inject({ method: 'GET', url: '/v1/query/whoami', headers: bearer(other.keys.secret) });
    expect(who.statusCode).toBe(200);
    expect(await auditRows(h.store, other.org_id)).toHaveLength(0);
  });

  it.skipIf(skip)('purgeDeletedSites removes the deleted site\'s rows from every table that holds them and keeps every other site\'s', async () => {
    const { org, jwt } = await setup();
    const keep = (await createSite(jwt, { name: 'Keep', url: 'https://keep.example' })).json().data;
    const now = h.clock.now();
    await seedSiteRows(h.store, org.org_id, org.site_id, now);
    await seedSiteRows(h.store, org.org_id, org.site_id, now);
    await seedSiteRows(h.store, org.org_id, keep.id, now);

    // Every site table holds rows of both sites before (else its check below proves nothing).
    const doomedBefore = await siteRowCounts(h.store, org.site_id);
    const keptBefore = await siteRowCounts(h.store, keep.id);
    const empty = (counts: Record<string, number>) => Object.keys(counts).filter((table) => counts[table] === 0);
    expect(empty(doomedBefore)).toEqual([]);
    expect(empty(keptBefore)).toEqual([]);
    expect(Object.keys(doomedBefore).length).toBeGreaterThanOrEqual(26);

    const del = await h.app.inject({ method: 'DELETE', url: `/v1/manage/site/${org.site_id}`, headers: bearer(jwt) });
    expect(del.statusCode).toBe(200);
    await purgeDeletedSites(h.store);

    expect(await siteRowCounts(h.store, org.site_id)).toEqual(Object.fromEntries(Object.keys(doomedBefore).map((table) => [table, 0])));
    expect(await siteRowCounts(h.store, keep.id)).toEqual(keptBefore);
    // The site row itself stays (hidden), so its id is never reused and the audit trail resolves.
    const site = await h.store.db.selectFrom('sites').select('deleted_at').where('id', '=', org.site_id).executeTakeFirstOrThrow();
    expect(site.deleted_at).toBe(now);
    // Purging again is harmless.
    await purgeDeletedSites(h.store);
    expect(await siteRowCounts(h.store, keep.id)).toEqual(keptBefore);
  });

  it.skipIf(skip)('purging works in batches smaller than the data', async () => {
    const { org, jwt } = await setup();
    for (let i = 0; i < 3; i++) await seedSiteRows(h.store, org.org_id, org.site_id, h.clock.now());
    expect((await h.app.inject({ method: 'DELETE', url: `/v1/manage/site/${org.site_id}`, headers: bearer(jwt) })).statusCode).toBe(200);
    await purgeDeletedSites(h.store, 2);
    const left = await siteRowCounts(h.store, org.site_id);
    expect(Object.entries(left).filter(([, n]) => n > 0)).toEqual([]);
  });
});

eachDialect('site writes and their audit rows are one transaction', ({ name, skip }) => {
  const h = useHarness(name, { raisedLimits: true });
  let org: Org;
  let jwt: string;
  beforeAll(async () => {
    org = await h.org('Atomic');
    jwt = org.jwt;
    // Break the audit log: every write that records an audit row now fails at that insert.
    await sql`ALTER TABLE audit_log RENAME TO audit_log_broken`.execute(h.store.db);
  });

  it.skipIf(skip)('a create whose audit row fails leaves no site behind', async () => {
    const res = await h.app.inject({ method: 'POST', url: '/v1/manage/site', headers: bearer(jwt), payload: { name: 'Ghost', url: 'https://ghost.example' } });
    expect(res.statusCode).toBe(500);
    expect(res.json().error.code).toBe('internal_error');
    const sites = await h.store.db.selectFrom('sites').select('name').where('org_id', '=', org.org_id).execute();
    expect(sites).toEqual([{ name: 'Atomic site' }]);
  });

  it.skipIf(skip)('an update whose audit row fails changes nothing', async () => {
    const res = await h.app.inject({ method: 'PATCH', url: `/v1/manage/site/${org.site_id}`, headers: bearer(jwt), payload: { name: 'Changed' } });
    expect(res.statusCode).toBe(500);
    const site = await h.store.db.selectFrom('sites').select('name').where('id', '=', org.site_id).executeTakeFirstOrThrow();
    expect(site.name).toBe('Atomic site');
  });

  it.skipIf(skip)('a delete whose audit row fails neither hides the site nor revokes its keys', async () => {
    const res = await h.app.inject({ method: 'DELETE', url: `/v1/manage/site/${org.site_id}`, headers: bearer(jwt) });
    expect(res.statusCode).toBe(500);
    const site = await h.store.db.selectFrom('sites').select('deleted_at').where('id', '=', org.site_id).executeTakeFirstOrThrow();
    expect(site.deleted_at).toBeNull();
    const who = await h.app.inject({ method: 'GET', url: '/v1/query/whoami', headers: bearer(org.keys.secret) });
    expect(who.statusCode).toBe(200);
    expect(who.json().data.site.id).toBe(org.site_id);
    const revoked = await h.store.db.selectFrom('api_keys').select('id').where('site_id', '=', org.site_id).where('revoked_at', 'is not', null).execute();
    expect(revoked).toHaveLength(0);
  });
});

eachDialect('site audit rows for key-authenticated writes', ({ name, skip }) => {
  const h = useHarness(name, { raisedLimits: true });

  it.skipIf(skip)('a site-scoped key\'s PATCH is audited with that key as actor and no key material', async () => {
    const org = await h.org('KeyAudit');
    const keyId = await keyIdOf(h.store, org.org_id, 'secret');
    const res = await h.app.inject({ method: 'PATCH', url: `/v1/manage/site/${org.site_id}`, headers: bearer(org.keys.secret), payload: { url: 'https://renamed.example' } });
    expect(res.statusCode).toBe(200);
    const rows = await auditRows(h.store, org.org_id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ action: 'site.updated', actor_type: 'key', actor_id: keyId, target_type: 'site', target_id: org.site_id, site_id: org.site_id });
    expect(JSON.stringify(rows[0])).not.toContain(org.keys.secret);
  });
});
