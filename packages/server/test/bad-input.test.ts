// Hostile and malformed input on the write routes: each gets its exact error code and leaves
// no partial record (row counts and the audit log are unchanged), while odd but valid text
// (SQL metacharacters, emoji) is stored and returned verbatim. Both dialects.
import { expect, it } from 'vitest';
import { bearer, type Harness, eachDialect, useHarness } from './helpers/harness.ts';

type Inject = Awaited<ReturnType<Harness['app']['inject']>>;

const TABLES = ['orgs', 'org_settings', 'users', 'memberships', 'user_tokens', 'sites', 'api_keys', 'audit_log'] as const;

eachDialect('bad input', ({ name, skip }) => {
  const h = useHarness(name, { raisedLimits: true });

  const json = { 'content-type': 'application/json' };

  /** A fresh org per test, with its owner's user token, so no test depends on another. */
  async function fresh(label = 'Bad') {
    const org = await h.org(label);
    return { org, jwt: org.jwt };
  }

  /** Row counts of every table a write here could touch, plus the org's site as stored. */
  async function snapshot(siteId?: string) {
    const counts: Record<string, number> = {};
    for (const table of TABLES) {
      const row = await h.store.db.selectFrom(table).select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow();
      counts[table] = Number(row.n);
    }
    const site = siteId
      ? await h.store.db.selectFrom('sites').select(['name', 'url', 'allowed_origins', 'updated_at', 'deleted_at']).where('id', '=', siteId).executeTakeFirst()
      : undefined;
    const settings = await h.store.db.selectFrom('org_settings').select(['org_id', 'duck_facts', 'updated_at']).orderBy('org_id').execute();
    return { counts, site: site ? { ...site, updated_at: Number(site.updated_at) } : undefined, settings: settings.map((s) => ({ ...s, updated_at: Number(s.updated_at) })) };
  }

  /** Runs the requests and checks that the stored state is exactly what it was before. */
  async function unchanged(siteId: string | undefined, run: () => Promise<void>) {
    const before = await snapshot(siteId);
    await run();
    expect(await snapshot(siteId)).toEqual(before);
  }

  function expectError(res: Inject, status: number, code: string, field?: string) {
    expect(res.statusCode, res.body).toBe(status);
    const body = res.json();
    expect(body.data).toBeNull();
    expect(body.error.code).toBe(code);
    expect(body.error.status).toBe(status);
    if (field !== undefined) expect(body.error.details?.field).toBe(field);
  }

  const patchSite = (key: string, siteId: string, payload: unknown, headers: Record<string, string> = {}) =>
    h.app.inject({ method: 'PATCH', url: `/v1/manage/site/${siteId}`, headers: { ...bearer(key), ...json, ...headers }, payload: typeof payload === 'string' ? payload : JSON.stringify(payload) });
  const createSite = (jwt: string, payload: unknown, headers: Record<string, string> = {}) =>
    h.app.inject({ method: 'POST', url: '/v1/manage/site', headers: { ...bearer(jwt), ...json, ...headers }, payload: typeof payload === 'string' ? payload : JSON.stringify(payload) });
  const addMember = (jwt: string, payload: unknown) =>
    h.app.inject({ method: 'POST', url: '/v1/manage/members', headers: { ...bearer(jwt), ...json }, payload: typeof payload === 'string' ? payload : JSON.stringify(payload) });
  const createKey = (jwt: string, payload: unknown) =>
    h.app.inject({ method: 'POST', url: '/v1/manage/keys', headers: { ...bearer(jwt), ...json }, payload: typeof payload === 'string' ? payload : JSON.stringify(payload) });

  it.skipIf(skip)('truncated JSON is 400 invalid_json on every write route, with nothing stored', async () => {
    const { org, jwt } = await fresh();
    await unchanged(org.site_id, async () => {
      for (const payload of ['{"name": "x', '{"name": "Shop", "url": "https://a.example"', '{', '{"email":"a@b.example","role":']) {
        expectError(await patchSite(org.keys.secret, org.site_id, payload), 400, 'invalid_json');
        expectError(await createSite(jwt, payload), 400, 'invalid_json');
        expectError(await addMember(jwt, payload), 400, 'invalid_json');
        expectError(await createKey(jwt, payload), 400, 'invalid_json');
      }
    });
  });

  it.skipIf(skip)('a JSON array, a string or null where an object is needed is 400 invalid_input on the body', async () => {
    const { org, jwt } = await fresh();
    await unchanged(org.site_id, async () => {
      for (const payload of ['[]', '[{"name":"x","url":"https://a.example"}]', '"name"', '42', 'null']) {
        expectError(await patchSite(org.keys.secret, org.site_id, payload), 400, 'invalid_input', 'body');
        expectError(await createSite(jwt, payload), 400, 'invalid_input', 'body');
        expectError(await addMember(jwt, payload), 400, 'invalid_input', 'body');
        expectError(await createKey(jwt, payload), 400, 'invalid_input', 'body');
      }
    });
  });

  it.skipIf(skip)('a 2 MB body is 413 payload_too_large', async () => {
    const { org, jwt } = await fresh();
    const big = JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024), url: 'https://big.example' });
    await unchanged(org.site_id, async () => {
      expectError(await patchSite(org.keys.secret, org.site_id, big), 413, 'payload_too_large');
      expectError(await createSite(jwt, big), 413, 'payload_too_large');
      expectError(await addMember(jwt, JSON.stringify({ email: `${'a'.repeat(2 * 1024 * 1024)}@x.example`, role: 'viewer' })), 413, 'payload_too_large');
    });
  });

  it.skipIf(skip)('a body that is not application/json is 415 unsupported_media_type', async () => {
    const { org, jwt } = await fresh();
    await unchanged(org.site_id, async () => {
      for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml', 'multipart/form-data; boundary=x']) {
        expectError(await patchSite(org.keys.secret, org.site_id, '{"name":"Renamed"}', { 'content-type': type }), 415, 'unsupported_media_type');
        expectError(await createSite(jwt, '{"name":"New","url":"https://n.example"}', { 'content-type': type }), 415, 'unsupported_media_type');
      }
    });
  });

  it.skipIf(skip)('an empty Bearer token or a Basic header is 401 missing_auth', async () => {
    const { org } = await fresh();
    await unchanged(org.site_id, async () => {
      for (const authorization of ['Bearer ', 'Bearer', 'Basic dXNlcjpwYXNzd29yZA==', `Basic ${org.keys.secret}`, org.keys.secret]) {
        // From an address of its own: failed authentications are limited per client IP.
        const patch = await h.app.inject({ method: 'PATCH', url: `/v1/manage/site/${org.site_id}`, headers: { authorization, ...json }, payload: '{"name":"Hijacked"}', remoteAddress: '10.66.0.1' });
        expectError(patch, 401, 'missing_auth');
        const read = await h.app.inject({ method: 'GET', url: '/v1/query/whoami', headers: { authorization }, remoteAddress: '10.66.0.2' });
        expectError(read, 401, 'missing_auth');
      }
    });
  });

  it.skipIf(skip)('unknown fields are 400 invalid_input naming the field', async () => {
    const { org, jwt } = await fresh();
    await unchanged(org.site_id, async () => {
      expectError(await patchSite(org.keys.secret, org.site_id, { name: 'ok', colour: 'green' }), 400, 'invalid_input', 'colour');
      expectError(await createSite(jwt, { name: 'New', url: 'https://n.example', owner: 'me' }), 400, 'invalid_input', 'owner');
      expectError(await addMember(jwt, { email: 'new@example.com', role: 'viewer', password: 'hunter22' }), 400, 'invalid_input', 'password');
      expectError(await createKey(jwt, { key_type: 'secret', scopes: ['query:read'], role: 'owner' }), 400, 'invalid_input', 'role');
      const settings = await h.app.inject({ method: 'PATCH', url: '/v1/manage/settings', headers: bearer(jwt), payload: { duck_facts: true, theme: 'dark' } });
      expectError(settings, 400, 'invalid_input', 'theme');
    });
  });

  it.skipIf(skip)('a 201-character name and a 255-character email are 400 invalid_input; the bounds themselves pass', async () => {
    const { org, jwt } = await fresh();
    const longEmail = `${'a'.repeat(243)}@example.com`;
    expect(longEmail).toHaveLength(255);
    await unchanged(org.site_id, async () => {
      expectError(await patchSite(org.keys.secret, org.site_id, { name: 'n'.repeat(201) }), 400, 'invalid_input', 'name');
      expectError(await createSite(jwt, { name: 'n'.repeat(201), url: 'https://long.example' }), 400, 'invalid_input', 'name');
      expectError(await createKey(jwt, { key_type: 'secret', scopes: ['query:read'], name: 'k'.repeat(201) }), 400, 'invalid_input', 'name');
      expectError(await addMember(jwt, { email: longEmail, role: 'viewer' }), 400, 'invalid_input', 'email');
    });
    const okName = 'n'.repeat(200);
    const created = await createSite(jwt, { name: okName, url: 'https://long.example' });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().data.name).toBe(okName);
    const okEmail = `${'a'.repeat(242)}@example.com`;
    const member = await addMember(jwt, { email: okEmail, role: 'viewer' });
    expect(member.statusCode, member.body).toBe(201);
    expect(member.json().data.email).toBe(okEmail);
  });

  it.skipIf(skip)('SQL metacharacters and emoji in names are stored and returned verbatim', async () => {
    const { org, jwt } = await fresh();
    const names = [`Robert'); DROP TABLE sites;--`, '🦆 Duck shop', `"quoted" \\ back\\slash % _ ; -- /* */`, 'Ünïcödé 日本語 🦆🦆'];
    const before = await snapshot();
    const ids: string[] = [];
    for (const siteName of names) {
      const res = await createSite(jwt, { name: siteName, url: `https://s${ids.length}.example/?q='1'--` });
      expect(res.statusCode, res.body).toBe(201);
      expect(res.json().data.name).toBe(siteName);
      expect(res.json().data.url).toBe(`https://s${ids.length}.example/?q='1'--`);
      ids.push(res.json().data.id);
      const stored = await h.store.db.selectFrom('sites').select('name').where('id', '=', res.json().data.id).executeTakeFirstOrThrow();
      expect(stored.name).toBe(siteName);
    }
    // Exactly one site and one audit row per create; the sites table is intact.
    const after = await snapshot();
    expect(after.counts.sites).toBe(before.counts.sites + names.length);
    expect(after.counts.audit_log).toBe(before.counts.audit_log + names.length);
    const list = await h.app.inject({ method: 'GET', url: '/v1/manage/sites', headers: bearer(jwt) });
    expect(list.statusCode).toBe(200);
    const listed = new Map((list.json().data.sites as { id: string; name: string }[]).map((s) => [s.id, s.name]));
    names.forEach((siteName, i) => expect(listed.get(ids[i])).toBe(siteName));

    // A rename through the site's own secret key, and a member with a quote in the email.
    const renamed = await patchSite(org.keys.secret, org.site_id, { name: '🦆 Duck shop' });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(renamed.json().data.name).toBe('🦆 Duck shop');
    const whoami = await h.app.inject({ method: 'GET', url: '/v1/query/whoami', headers: bearer(org.keys.secret) });
    expect(whoami.json().data.site.name).toBe('🦆 Duck shop');
    const member = await addMember(jwt, { email: `o'brien+test@example.com`, role: 'viewer' });
    expect(member.statusCode, member.body).toBe(201);
    expect(member.json().data.email).toBe(`o'brien+test@example.com`);
    const key = await createKey(jwt, { key_type: 'secret', scopes: ['query:read'], name: `Robert'); DROP TABLE api_keys;--` });
    expect(key.statusCode, key.body).toBe(201);
    expect(key.json().data.name).toBe(`Robert'); DROP TABLE api_keys;--`);
    const check = await h.app.inject({ method: 'GET', url: '/v1/query/whoami', headers: bearer(key.json().data.key) });
    expect(check.statusCode).toBe(200);
  });

  it.skipIf(skip)('an invalid URL is 400 invalid_input on url', async () => {
    const { org, jwt } = await fresh();
    await unchanged(org.site_id, async () => {
      for (const url of ['not a url', 'ftp://x.example', 'javascript:alert(1)', 'https://user:pass@x.example', 'https://user@x.example', '', '   ', '//x.example', 'data:text/html,hi']) {
        expectError(await patchSite(org.keys.secret, org.site_id, { url }), 400, 'invalid_input', 'url');
        expectError(await createSite(jwt, { name: 'Bad URL', url }), 400, 'invalid_input', 'url');
      }
    });
  });

  it.skipIf(skip)('an invalid origin fails the whole create: no site and no audit row', async () => {
    const { org, jwt } = await fresh();
    await unchanged(org.site_id, async () => {
      expectError(await createSite(jwt, { name: 'Origins', url: 'https://o.example', allowed_origins: ['https://ok.example', 'ftp://bad.example'] }), 400, 'invalid_input', 'allowed_origins');
      expectError(await patchSite(org.keys.secret, org.site_id, { name: 'Renamed', allowed_origins: ['javascript:alert(1)'] }), 400, 'invalid_input', 'allowed_origins');
    });
  });

  it.skipIf(skip)('an invalid email is 400 invalid_input on email', async () => {
    const { org, jwt } = await fresh();
    await unchanged(org.site_id, async () => {
      for (const email of ['nope', 'a@', '@example.com', 'a b@example.com', '', 'a@@example.com']) {
        expectError(await addMember(jwt, { email, role: 'viewer' }), 400, 'invalid_input', 'email');
      }
      const login = await h.app.inject({ method: 'POST', url: '/v1/auth/login', payload: { email: 'nope', password: 'whatever-123' } });
      expectError(login, 400, 'invalid_input', 'email');
    });
  });

  it.skipIf(skip)('an unknown role is 400 invalid_input on role', async () => {
    const { org, jwt } = await fresh();
    await unchanged(org.site_id, async () => {
      for (const role of ['superuser', 'OWNER', '', 'root ']) {
        expectError(await addMember(jwt, { email: 'someone@example.com', role }), 400, 'invalid_input', 'role');
      }
      expectError(await addMember(jwt, { email: 'someone@example.com' }), 400, 'invalid_input', 'role');
    });
  });

  it.skipIf(skip)('a bad key_type or an unknown scope is 400 invalid_input', async () => {
    const { org, jwt } = await fresh();
    await unchanged(org.site_id, async () => {
      for (const keyType of ['root', 'SECRET', 'jwt', '']) {
        expectError(await createKey(jwt, { key_type: keyType, scopes: ['query:read'] }), 400, 'invalid_input', 'key_type');
      }
      expectError(await createKey(jwt, { scopes: ['query:read'] }), 400, 'invalid_input', 'key_type');
      for (const scopes of [['admin:all'], ['query:read', 'query:write'], ['*']]) {
        const res = await createKey(jwt, { key_type: 'secret', scopes });
        expectError(res, 400, 'invalid_input');
        expect(res.json().error.details.field).toMatch(/^scopes(\.\d+)?$/);
      }
      expectError(await createKey(jwt, { key_type: 'secret', scopes: [] }), 400, 'invalid_input', 'scopes');
      expectError(await createKey(jwt, { key_type: 'secret' }), 400, 'invalid_input', 'scopes');
      // A real scope the key type may not hold.
      expectError(await createKey(jwt, { key_type: 'mcp', scopes: ['ingest:write'] }), 400, 'invalid_input', 'scopes');
      expectError(await createKey(jwt, { key_type: 'publishable', site_id: org.site_id, scopes: ['manage:write'] }), 400, 'invalid_input', 'scopes');
    });
  });

  it.skipIf(skip)('blank names are 400 invalid_input on name', async () => {
    const { org, jwt } = await fresh();
    await unchanged(org.site_id, async () => {
      for (const blank of ['   ', '\t', '', ' \n ']) {
        expectError(await patchSite(org.keys.secret, org.site_id, { name: blank }), 400, 'invalid_input', 'name');
        expectError(await createSite(jwt, { name: blank, url: 'https://blank.example' }), 400, 'invalid_input', 'name');
        expectError(await createKey(jwt, { key_type: 'secret', scopes: ['query:read'], name: blank }), 400, 'invalid_input', 'name');
      }
      // Control characters inside a name are refused too.
      expectError(await createSite(jwt, { name: 'bell\u0007shop', url: 'https://bell.example' }), 400, 'invalid_input', 'name');
    });
  });

  it.skipIf(skip)('bodies are not coerced: strings for booleans and numbers are 400 invalid_input', async () => {
    const { org, jwt } = await fresh();
    const patchSettings = (payload: unknown) =>
      h.app.inject({ method: 'PATCH', url: '/v1/manage/settings', headers: { ...bearer(jwt), ...json }, payload: JSON.stringify(payload) });
    await unchanged(org.site_id, async () => {
      for (const value of ['true', 'false', 1, 0, null, 'yes']) {
        expectError(await patchSettings({ duck_facts: value }), 400, 'invalid_input', 'duck_facts');
      }
      expectError(await patchSettings({}), 400, 'invalid_input');
      expectError(await createSite(jwt, { name: 42, url: 'https://n.example' }), 400, 'invalid_input', 'name');
      expectError(await createSite(jwt, { name: ['a'], url: 'https://n.example' }), 400, 'invalid_input', 'name');
      expectError(await createKey(jwt, { key_type: 'secret', scopes: 'query:read' }), 400, 'invalid_input', 'scopes');
      const login = await h.app.inject({ method: 'POST', url: '/v1/auth/login', headers: json, payload: JSON.stringify({ email: org.email, password: org.password, expires_in: '3600' }) });
      expectError(login, 400, 'invalid_input', 'expires_in');
    });
    const settings = await h.app.inject({ method: 'GET', url: '/v1/manage/settings', headers: bearer(jwt) });
    expect(settings.json().data.duck_facts).toBe(false);
  });

  it.skipIf(skip)('a key expiring in the past (by the injected clock) or at a malformed time is 400 invalid_input on expires_at', async () => {
    const { org, jwt } = await fresh();
    const now = h.clock.now();
    await unchanged(org.site_id, async () => {
      for (const expiresAt of ['2020-01-01T00:00:00Z', new Date(now - 60_000).toISOString(), new Date(now).toISOString()]) {
        expectError(await createKey(jwt, { key_type: 'secret', scopes: ['query:read'], expires_at: expiresAt }), 400, 'invalid_input', 'expires_at');
      }
      for (const expiresAt of ['tomorrow', '2030-13-01T00:00:00Z', '', 1893456000000]) {
        expectError(await createKey(jwt, { key_type: 'secret', scopes: ['query:read'], expires_at: expiresAt }), 400, 'invalid_input', 'expires_at');
      }
    });
    const future = new Date(now + 86_400_000).toISOString();
    const ok = await createKey(jwt, { key_type: 'secret', scopes: ['query:read'], expires_at: future });
    expect(ok.statusCode, ok.body).toBe(201);
    expect(ok.json().data.expires_at).toBe(future);
  });

  it.skipIf(skip)('a failed write of a valid shape leaves nothing behind either', async () => {
    const { org, jwt } = await fresh();
    const other = await fresh('Other');
    await unchanged(org.site_id, async () => {
      // Another org's site: 404, no key minted.
      expectError(await createKey(jwt, { key_type: 'publishable', site_id: other.org.site_id }), 404, 'not_found');
      // A publishable key without a site.
      expectError(await createKey(jwt, { key_type: 'publishable' }), 400, 'invalid_input', 'site_id');
      // The owner is already a member: no user, token or membership is created.
      expectError(await addMember(jwt, { email: org.email.toUpperCase(), role: 'viewer' }), 409, 'conflict');
      // A site-scoped key cannot create sites, whatever the body.
      const scoped = await h.app.inject({ method: 'POST', url: '/v1/manage/site', headers: bearer(org.keys.secret), payload: { name: 'Sneaky', url: 'https://sneaky.example' } });
      expectError(scoped, 403, 'org_scope_required');
    });
  });
  it.skipIf(skip)('a NUL character anywhere (query, path, body, a key) is 400 invalid_input naming it, and stores nothing; ingest stores it as U+FFFD', async () => {
    // PostgreSQL text cannot hold one: found by the fuzzer as a 500 on PostgreSQL.
    const { org, jwt } = await fresh('Nul');
    const before = await snapshot(org.site_id);
    const deploysBefore = await h.store.db.selectFrom('deploys').select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow();
    const cases: [string, string, unknown, string][] = [
      ['DELETE', `/v1/manage/privacy/subject?site_id=${org.site_id}&visitor_id=%00`, undefined, 'visitor_id'],
      ['GET', `/v1/query/page?site_id=${org.site_id}&page=/a%00b`, undefined, 'page'],
      ['PATCH', '/v1/manage/sdk-config/prod%00uction', { sample_rate: 1 }, 'environment'],
      ['POST', '/v1/manage/deploys', { site_id: org.site_id, version: 'v1\u0000' }, 'version'],
      ['POST', '/v1/manage/deploys', { site_id: org.site_id, version: 'v1', metadata: [{ 'k\u0000': 1 }] }, 'metadata[0].k\u0000'],
    ];
    for (const [method, url, payload, field] of cases) {
      const res = await h.app.inject({ method: method as 'POST', url, headers: { ...bearer(jwt), ...(payload ? json : {}) }, payload: payload as object });
      expectError(res, 400, 'invalid_input');
      expect(res.json().error.details.field, url).toBe(field);
    }
    expect(await snapshot(org.site_id)).toEqual(before);
    expect(await h.store.db.selectFrom('deploys').select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow()).toEqual(deploysBefore);
    // Ingest takes visitors' text as it comes: a NUL becomes U+FFFD, anywhere in the batch.
    const t = h.clock.now();
    const ingest = await h.app.inject({ method: 'POST', url: '/v1/ingest', payload: { key: org.keys.publishable, sid: 'c'.repeat(32), ts: t, meta: { ua: 'UA\u0000' }, events: [
      { type: 'signal', ts: t, page: '/nul', signal_type: 'rage_click', element: '#a\u0000', label: 'Pay\u0000' },
      { type: 'track', ts: t, page: '/nul', name: 'clicked', props: { 'k\u0000': 'v\u0000' } },
    ] } });
    expect(ingest.statusCode, ingest.body).toBe(202);
    expect(ingest.json().data).toMatchObject({ accepted: 2, rejected: 0 });
    const signal = await h.store.db.selectFrom('signals').select(['element', 'label']).where('site_id', '=', org.site_id).executeTakeFirstOrThrow();
    expect(signal).toEqual({ element: '#a\uFFFD', label: 'Pay\uFFFD' });
    const track = await h.store.db.selectFrom('events').select('props').where('site_id', '=', org.site_id).where('type', '=', 'track').executeTakeFirstOrThrow();
    expect(JSON.parse(String(track.props))).toEqual({ 'k\uFFFD': 'v\uFFFD' });
  });
});
