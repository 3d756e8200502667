// GET /v1/sdk-config?key=svc_pub_...: the browser SDK's config, public, CORS-open and cacheable.
// It answers the key's own site, the environment's config over production's, and only the
// browser-safe part: revenue values, weights and verification settings never leave through it
// (docs/issues.md, "SDK config"). Both dialects.
import { describe, expect, it } from 'vitest';
import { bearer, createHarness, eachDialect, useHarness } from './helpers/harness.ts';

eachDialect('public SDK config', ({ name, skip }) => {
  const h = useHarness(name, { raisedLimits: true, newMinuteEachTest: true });

  const getConfig = (query: string) => h.app.inject({ method: 'GET', url: `/v1/sdk-config${query}` });
  const patch = async (secret: string, environment: string, payload: Record<string, unknown>) => {
    const res = await h.app.inject({ method: 'PATCH', url: `/v1/manage/sdk-config/${environment}`, headers: bearer(secret), payload });
    expect(res.statusCode, res.body).toBe(200);
  };

  it.skipIf(skip)('a site with no config gets the defaults, cacheable for 60 s and open to any origin', async () => {
    const org = await h.org('Defaults');
    const res = await getConfig(`?key=${org.keys.publishable}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=60');
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.json()).toEqual({
      data: {
        site_id: org.site_id, environment: 'production', sample_rate: 1, signals: {}, ignore_selectors: [], page_groups: [],
        privacy: { respect_dnt: false, require_consent: false, cookieless: false }, updated_at: null, clips: { enabled: false },
      },
      error: null,
    });
    const preflight = await h.app.inject({ method: 'OPTIONS', url: '/v1/sdk-config', headers: { origin: 'https://shop.example', 'access-control-request-method': 'GET' } });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('*');
    expect(preflight.headers['access-control-allow-methods']).toBe('GET, OPTIONS');
  });

  it.skipIf(skip)('answers the key\'s site, the environment over production, and only the browser-safe settings', async () => {
    const org = await h.org('Public');
    const other = await h.org('Other');
    await patch(org.keys.secret, 'production', {
      sample_rate: 0.5,
      signals: { rage_click: { enabled: true, threshold: 4 } },
      ignore_selectors: ['.chat-widget'],
      page_groups: [{ match: '^/orders/[^/]+$', page: '/orders/:id' }],
      privacy: { respect_dnt: true },
      revenue_config: { currency: 'EUR', average_value_cents: 9900, plan_values: { pro: 4900 }, conversion_events: ['order_paid'] },
      signal_weights: { dead_click: 30 },
      verification_environments: ['staging'],
    });
    const productionAt = new Date(h.clock.now()).toISOString();
    h.clock.advance(60_000);
    await patch(org.keys.secret, 'staging', { sample_rate: 1, privacy: { cookieless: true } });
    const stagingAt = new Date(h.clock.now()).toISOString();
    await patch(other.keys.secret, 'production', { sample_rate: 0.1 });

    const production = await getConfig(`?key=${org.keys.publishable}`);
    expect(production.statusCode, production.body).toBe(200);
    // Exactly these keys: anything else (revenue, weights, verification) would be a leak.
    expect(production.json().data).toEqual({
      site_id: org.site_id, environment: 'production', sample_rate: 0.5,
      signals: { rage_click: { enabled: true, threshold: 4 } }, ignore_selectors: ['.chat-widget'],
      page_groups: [{ match: '^/orders/[^/]+$', page: '/orders/:id' }],
      privacy: { respect_dnt: true, require_consent: false, cookieless: false }, updated_at: productionAt, clips: { enabled: false },
    });
    for (const notPublic of ['revenue_config', 'signal_weights', 'verification_environments', '9900', '4900', 'order_paid', 'dead_click']) {
      expect(production.body).not.toContain(notPublic);
    }

    // Staging: its own keys replace production's whole (privacy included); the rest is production's.
    const staging = await getConfig(`?key=${org.keys.publishable}&env=staging`);
    expect(staging.json().data).toEqual({
      site_id: org.site_id, environment: 'staging', sample_rate: 1,
      signals: { rage_click: { enabled: true, threshold: 4 } }, ignore_selectors: ['.chat-widget'],
      page_groups: [{ match: '^/orders/[^/]+$', page: '/orders/:id' }],
      privacy: { respect_dnt: false, require_consent: false, cookieless: true }, updated_at: stagingAt, clips: { enabled: false },
    });
    expect(staging.body).not.toContain('9900');

    // The other org's key sees its own site only.
    const theirs = await getConfig(`?key=${other.keys.publishable}`);
    expect(theirs.json().data).toMatchObject({ site_id: other.site_id, sample_rate: 0.1, ignore_selectors: [] });
  });

  it.skipIf(skip)('no key, a bad or revoked key, a key without a site, and a bad environment are refused in the envelope', async () => {
    const org = await h.org('Refused');
    const expectError = async (query: string, status: number, code: string) => {
      const res = await getConfig(query);
      expect(res.statusCode, `${query}: ${res.body}`).toBe(status);
      expect(res.json()).toMatchObject({ data: null, error: { code } });
      expect(res.headers['cache-control']).not.toBe('public, max-age=60');
    };
    await expectError('', 401, 'missing_auth');
    await expectError('?key=', 401, 'missing_auth');
    await expectError('?key=svc_pub_nonsense', 401, 'invalid_key');
    await expectError(`?key=${org.keys.publishable}&env=${encodeURIComponent('bad env!')}`, 400, 'invalid_input');
    // An org-wide key belongs to no one site: there is no config to answer.
    const orgWide = await h.key(org, { type: 'secret', scopes: ['ingest:write', 'query:read'] });
    await expectError(`?key=${orgWide.key}`, 403, 'missing_scope');
    // A key without ingest:write is not a browser's key.
    const reader = await h.key(org, { type: 'secret', scopes: ['query:read'], siteId: org.site_id });
    await expectError(`?key=${reader.key}`, 403, 'missing_scope');

    const revocable = await h.key(org, { type: 'publishable', siteId: org.site_id });
    expect((await getConfig(`?key=${revocable.key}`)).statusCode).toBe(200);
    const revoke = await h.app.inject({ method: 'DELETE', url: `/v1/manage/keys/${revocable.id}`, headers: bearer(org.jwt) });
    expect(revoke.statusCode, revoke.body).toBe(200);
    await expectError(`?key=${revocable.key}`, 401, 'invalid_key');
    // A site's own secret key, even with ingest:write, never belongs in a URL.
    await expectError(`?key=${org.keys.secret}`, 403, 'missing_scope');
  });

  it.skipIf(skip)('an environment name is 1 to 64 letters, digits, dots, dashes or underscores, as documented', async () => {
    const org = await h.org('Env names');
    const send = (environment: string) => h.app.inject({ method: 'PATCH', url: `/v1/manage/sdk-config/${environment}`, headers: bearer(org.keys.secret), payload: { sample_rate: 0.5 } });
    expect((await send('e'.repeat(64))).statusCode).toBe(200);
    expect((await send('eu-west_1.canary')).statusCode).toBe(200);
    for (const bad of ['e'.repeat(65), 'bad%20env', 'caf%C3%A9']) {
      const res = await send(bad);
      expect(res.statusCode, bad).toBe(400);
      expect(res.json().error, bad).toMatchObject({ code: 'invalid_input', details: { field: 'environment' } });
    }
    const doc = (await h.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    const param = doc.paths['/v1/manage/sdk-config/{environment}'].patch.parameters.find((p: { name: string }) => p.name === 'environment');
    expect(param.schema).toMatchObject({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_.-]+$' });
  });

  it.skipIf(skip)('guessing keys here counts towards the per-address lockout', async () => {
    const org = await h.org('Guesses');
    const from = (key: string) => h.app.inject({ method: 'GET', url: `/v1/sdk-config?key=${key}`, remoteAddress: '203.0.113.77' });
    const answers: number[] = [];
    for (let i = 0; i < 40; i++) answers.push((await from(`svc_pub_guess${i}`)).statusCode);
    expect(answers.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(answers.at(-1)).toBe(429);
    // Locked out, even with the right key, until the window passes; another address is not.
    expect((await from(org.keys.publishable)).statusCode).toBe(429);
    expect((await h.app.inject({ method: 'GET', url: `/v1/sdk-config?key=${org.keys.publishable}`, remoteAddress: '203.0.113.78' })).statusCode).toBe(200);
  });
});

describe('the request log', () => {
  it('masks a key in the query string', async () => {
    const h = await createHarness('sqlite', { captureLogs: true });
    try {
      const org = await h.org('Logged');
      await h.app.inject({ method: 'GET', url: `/v1/sdk-config?env=production&key=${org.keys.publishable}` });
      await h.app.inject({ method: 'GET', url: `/v1/sdk-config?key=${org.keys.secret}` });
      const lines = h.logs.join('');
      expect(lines).toContain('/v1/sdk-config?env=production&key=[redacted]');
      expect(lines).not.toContain(org.keys.publishable);
      expect(lines).not.toContain(org.keys.secret);
    } finally {
      await h.close();
    }
  });
});
