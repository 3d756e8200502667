// MALLARD_SECRET rotation: with MALLARD_SECRET (new) and MALLARD_SECRET_PREVIOUS (old), a key,
// a user token, an invitation, a webhook secret and integration credentials made under the old
// secret keep working; a key used during the overlap is re-hashed under the new secret; the
// real `mallard secret rotate` re-seals every sealed secret, after which the new secret alone
// opens them; a token signed with a secret in neither slot is refused; neither secret is ever
// printed. Both dialects.
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp, type App } from '../src/app.ts';
import { signUserToken } from '../src/auth/jwt.ts';
import { Secrets } from '../src/auth/secrets.ts';
import { ConfigError, loadConfig } from '../src/config.ts';
import { forgetCredentials } from '../src/domain/authenticate.ts';
import { MemoryRateLimiter } from '../src/store/rate-limit.ts';
import { bearer, eachDialect, testConfig, useHarness, type Org } from './helpers/harness.ts';
import { enrolTotp, totpAt } from './helpers/two-factor.ts';

// The CLI starts a real process, a few seconds each on a busy machine.
vi.setConfig({ testTimeout: 180_000 });

const BIN = resolve(import.meta.dirname, '../bin/mallard.js');
const OLD = 'old-installation-secret-0123456789abcdefOLD';
const NEW = 'new-installation-secret-0123456789abcdefNEW';
const STRANGER = 'a-secret-in-neither-slot-0123456789abcdef';
const ROUTING_KEY = 'R0UTINGrotationKEYpagerduty98765';
const SSO_CLIENT_SECRET = 'sso-client-secret-rotation-4f1e9b2c7a';
const SSO_VERIFIER = 'pkce-verifier-rotation-0c6d2f8e1b3a5d7f9e';

function run(args: string[], env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    cwd: mkdtempSync(join(tmpdir(), 'mallard-secret-')),
    env: { PATH: process.env.PATH, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('the keyring', () => {
  it('seals and signs with the current secret; opens and verifies with either', async () => {
    const old = new Secrets(OLD);
    const both = new Secrets(NEW, OLD);
    const sealedOld = old.encrypt('sealed under the old secret');
    expect(both.open(sealedOld)).toEqual({ plain: 'sealed under the old secret', stale: true });
    expect(both.open(both.encrypt('new'))).toEqual({ plain: 'new', stale: false });
    expect(() => new Secrets(NEW).decrypt(sealedOld)).toThrow();
    expect(() => new Secrets(STRANGER, OLD).decrypt(both.encrypt('new'))).toThrow();
    expect(both.hmacs('api-key', 'k')).toEqual([new Secrets(NEW).hmac('api-key', 'k'), old.hmac('api-key', 'k')]);
    expect(new Secrets(NEW).hmacs('api-key', 'k')).toHaveLength(1);
  });

  it('config: MALLARD_SECRET_PREVIOUS is optional, at least 32 characters and not MALLARD_SECRET', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mallard-secret-config-'));
    const base = { DATABASE_URL: `sqlite:${join(dir, 'x.db')}`, MALLARD_SECRET: NEW };
    expect(loadConfig(base).previousSecret).toBeNull();
    expect(loadConfig({ ...base, MALLARD_SECRET_PREVIOUS: OLD }).previousSecret).toBe(OLD);
    expect(() => loadConfig({ ...base, MALLARD_SECRET_PREVIOUS: 'short' })).toThrow(new ConfigError('MALLARD_SECRET_PREVIOUS must be at least 32 characters'));
    expect(() => loadConfig({ ...base, MALLARD_SECRET_PREVIOUS: NEW })).toThrow(/MALLARD_SECRET_PREVIOUS must differ from MALLARD_SECRET/);
  });
});

describe('mallard secret rotate: arguments', () => {
  it('--help says what it re-seals and what it cannot re-hash', () => {
    const { code, stdout } = run(['secret', 'rotate', '--help']);
    expect(code).toBe(0);
    expect(stdout).toContain('Usage: mallard secret rotate [options]');
    expect(stdout).toMatch(/MALLARD_SECRET_PREVIOUS/);
    expect(stdout).toMatch(/re-hashed on its next use/);
  });

  it('without MALLARD_SECRET_PREVIOUS exits 1 with one line, naming neither secret', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mallard-secret-'));
    const res = run(['secret', 'rotate'], { DATABASE_URL: `sqlite:${join(dir, 'x.db')}`, MALLARD_SECRET: NEW });
    expect(res.code).toBe(1);
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
    expect(res.stderr).toMatch(/^mallard: MALLARD_SECRET_PREVIOUS is not set/);
    expect(res.stdout + res.stderr).not.toContain(NEW);
  });
});

eachDialect('MALLARD_SECRET rotation', ({ name }) => {
  // The installation before the rotation: everything below is made under OLD.
  const h = useHarness(name, { config: { secret: OLD } });
  let org: Org;
  let webhook: { id: string; secret: string };
  let firstWebhookSecret: string;
  let created: { statusCode: number; body: string };
  let invitation: string;
  let twoFactor: { email: string; password: string; secret: string; recoveryCode: string };
  let during: App;
  let after: App;

  /** An app on the same store, as a restarted process with other secrets would be. */
  const appWith = async (secret: string, previousSecret: string | null) => {
    const app = await buildApp({ config: testConfig({ secret, previousSecret }), store: h.store, clock: h.clock, limiter: new MemoryRateLimiter() });
    await app.ready();
    return app;
  };
  const whoami = (app: App, token: string) => app.inject({ method: 'GET', url: '/v1/query/whoami', headers: bearer(token) });

  beforeAll(async () => {
    org = await h.org('Rotation');
    // With an Idempotency-Key, so its answer (which holds the secret) is kept, sealed.
    const hook = await h.app.inject({ method: 'POST', url: '/v1/manage/webhooks', headers: { ...bearer(org.keys.secret), 'idempotency-key': 'rotation-hook-1' }, payload: { url: 'http://127.0.0.1:9/mallard-hook', events: ['deploy.recorded'] } });
    expect(hook.statusCode, hook.body).toBe(201);
    created = { statusCode: hook.statusCode, body: hook.body };
    firstWebhookSecret = hook.json().data.secret;
    // The webhook's own rotation: its previous secret is sealed too, for the grace period.
    const rotated = await h.app.inject({ method: 'POST', url: `/v1/manage/webhooks/${hook.json().data.id}/rotate-secret`, headers: bearer(org.keys.secret) });
    expect(rotated.statusCode, rotated.body).toBe(200);
    webhook = { id: hook.json().data.id, secret: rotated.json().data.secret };
    const integration = await h.app.inject({ method: 'POST', url: '/v1/manage/integrations', headers: bearer(org.keys.secret), payload: { provider: 'pagerduty', config: { routing_key: ROUTING_KEY } } });
    expect(integration.statusCode, integration.body).toBe(201);
    const member = await h.app.inject({ method: 'POST', url: '/v1/manage/members', headers: bearer(org.jwt), payload: { email: `invited-${name}@example.com`, role: 'viewer' } });
    expect(member.statusCode, member.body).toBe(201);
    invitation = member.json().data.invitation.token;
    // A member with two-factor sign-in: the authenticator secret is sealed under the old secret.
    const enrolling = await h.user(org, 'viewer');
    const enrolled = await enrolTotp(h.app, bearer(enrolling.jwt), h.clock.now());
    twoFactor = { email: enrolling.email, password: enrolling.password, secret: enrolled.secret, recoveryCode: enrolled.recoveryCodes[0] };
    // An SSO connection and a sign-in under way: the client secret and the PKCE verifier are sealed under the old secret.
    await h.store.db.insertInto('sso_connections').values({
      org_id: org.org_id, issuer: 'https://idp.example', client_id: 'mallard', client_secret: h.secrets.encrypt(SSO_CLIENT_SECRET),
      email_domains: '["rotation.example"]', jit: 0, default_role: 'viewer', required: 0, enabled: 1, created_at: h.clock.now(), updated_at: h.clock.now(),
    }).execute();
    await h.store.db.insertInto('sso_logins').values({
      id: randomUUID(), org_id: org.org_id, state_hash: h.secrets.hmac('token', 'rotation-state'), nonce: 'n', code_verifier: h.secrets.encrypt(SSO_VERIFIER),
      email: null, return_to: '/app/', created_at: h.clock.now(), expires_at: h.clock.now() + 600_000, used_at: null,
    }).execute();
    // Each process has its own cache of verified keys; these apps share the store's, so empty it
    // as a restart would.
    forgetCredentials(h.store.db);
    during = await appWith(NEW, OLD);
  });
  afterAll(async () => {
    await during?.close();
    await after?.close();
  });

  it('under (new, previous): a key made under the old secret works and is re-hashed under the new one', async () => {
    const before = await h.store.db.selectFrom('api_keys').select(['id', 'key_hash']).where('org_id', '=', org.org_id).where('key_type', '=', 'secret').executeTakeFirstOrThrow();
    expect(before.key_hash).toBe(new Secrets(OLD).hmac('api-key', org.keys.secret));
    const res = await whoami(during, org.keys.secret);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.org.id).toBe(org.org_id);
    const row = await h.store.db.selectFrom('api_keys').select('key_hash').where('id', '=', before.id).executeTakeFirstOrThrow();
    expect(row.key_hash).toBe(new Secrets(NEW).hmac('api-key', org.keys.secret));
  });

  it('under (new, previous): a user token signed with the old secret works; one signed with a secret in neither slot is refused', async () => {
    const ok = await whoami(during, org.jwt);
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().data.key_type).toBe('jwt');
    const forged = await signUserToken(new Secrets(STRANGER), org.user_id, org.org_id, h.clock.now(), 3600);
    const refused = await whoami(during, forged.token);
    expect(refused.statusCode).toBe(401);
    expect(refused.json().error.code).toBe('invalid_jwt');
    // New tokens are signed with the new secret.
    const login = await during.inject({ method: 'POST', url: '/v1/auth/login', payload: { email: org.email, password: org.password } });
    expect(login.statusCode, login.body).toBe(200);
    const fresh = login.json().data.token as string;
    const onlyNew = await appWith(NEW, null);
    try {
      expect((await whoami(onlyNew, fresh)).statusCode).toBe(200);
      expect((await whoami(onlyNew, org.jwt)).statusCode).toBe(401);
    } finally {
      await onlyNew.close();
    }
  });

  it('under (new, previous): an invitation issued under the old secret is redeemed', async () => {
    const res = await during.inject({ method: 'POST', url: '/v1/auth/set-password', payload: { token: invitation, password: 'invited-password-1' } });
    expect(res.statusCode, res.body).toBe(200);
  });

  it('under (new, previous): the webhook secret and the integration credentials open', async () => {
    const hook = await h.store.db.selectFrom('webhooks').select(['secret_enc', 'previous_secret_enc']).where('id', '=', webhook.id).executeTakeFirstOrThrow();
    expect(during.services.secrets.decrypt(hook.secret_enc)).toBe(webhook.secret);
    expect(during.services.secrets.decrypt(hook.previous_secret_enc!)).toBe(firstWebhookSecret);
    const integration = await h.store.db.selectFrom('integrations').select('config_enc').where('site_id', '=', org.site_id).executeTakeFirstOrThrow();
    expect(JSON.parse(during.services.secrets.decrypt(integration.config_enc))).toEqual({ routing_key: ROUTING_KEY });
    // Not yet under the new secret alone: that is what `secret rotate` is for.
    expect(() => new Secrets(NEW).decrypt(hook.secret_enc)).toThrow();
  });

  it('mallard secret rotate re-seals every sealed secret; then the new secret alone opens them, and nothing printed holds a secret', async () => {
    const env = { DATABASE_URL: h.storeUrl, MALLARD_SECRET: NEW, MALLARD_SECRET_PREVIOUS: OLD };
    const first = run(['secret', 'rotate'], env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toBe('');
    expect(first.stdout).toMatch(/^webhooks: 1 re-sealed under MALLARD_SECRET, 0 already under it, 0 unreadable/m);
    expect(first.stdout).toMatch(/^integrations: 1 re-sealed under MALLARD_SECRET, 0 already under it, 0 unreadable/m);
    expect(first.stdout).toMatch(/^idempotency_keys: 1 re-sealed under MALLARD_SECRET, 0 already under it, 0 unreadable/m);
    expect(first.stdout).toMatch(/^user_mfa: 1 re-sealed under MALLARD_SECRET, 0 already under it, 0 unreadable/m);
    expect(first.stdout).toMatch(/^sso_connections: 1 re-sealed under MALLARD_SECRET, 0 already under it, 0 unreadable/m);
    expect(first.stdout).toMatch(/^sso_logins: 1 re-sealed under MALLARD_SECRET, 0 already under it, 0 unreadable/m);
    for (const secret of [SSO_CLIENT_SECRET, SSO_VERIFIER]) expect(first.stdout).not.toContain(secret);
    expect(first.stdout).toMatch(/^api_keys: \d+ active keys not re-hashed/m);
    expect(first.stdout).toMatch(/^user_recovery_codes: 1 users hold unused two-factor recovery codes/m);
    for (const secret of [OLD, NEW, webhook.secret, firstWebhookSecret, ROUTING_KEY, org.keys.secret, twoFactor.secret, twoFactor.recoveryCode]) expect(first.stdout).not.toContain(secret);

    const onlyNew = new Secrets(NEW);
    const hook = await h.store.db.selectFrom('webhooks').select(['secret_enc', 'previous_secret_enc']).where('id', '=', webhook.id).executeTakeFirstOrThrow();
    expect(onlyNew.open(hook.secret_enc)).toEqual({ plain: webhook.secret, stale: false });
    expect(onlyNew.open(hook.previous_secret_enc!)).toEqual({ plain: firstWebhookSecret, stale: false });
    const integration = await h.store.db.selectFrom('integrations').select('config_enc').where('site_id', '=', org.site_id).executeTakeFirstOrThrow();
    expect(JSON.parse(onlyNew.decrypt(integration.config_enc))).toEqual({ routing_key: ROUTING_KEY });
    const enrolledUser = await h.store.db.selectFrom('users').select('id').where('email', '=', twoFactor.email).executeTakeFirstOrThrow();
    const mfa = await h.store.db.selectFrom('user_mfa').select('totp_secret').where('user_id', '=', enrolledUser.id).executeTakeFirstOrThrow();
    expect(onlyNew.open(mfa.totp_secret)).toEqual({ plain: twoFactor.secret, stale: false });
    const sso = await h.store.db.selectFrom('sso_connections').select('client_secret').where('org_id', '=', org.org_id).executeTakeFirstOrThrow();
    expect(onlyNew.open(sso.client_secret)).toEqual({ plain: SSO_CLIENT_SECRET, stale: false });
    const signIn = await h.store.db.selectFrom('sso_logins').select('code_verifier').where('org_id', '=', org.org_id).executeTakeFirstOrThrow();
    expect(onlyNew.open(signIn.code_verifier)).toEqual({ plain: SSO_VERIFIER, stale: false });

    // Again: nothing left to re-seal.
    const second = run(['secret', 'rotate'], env);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(/^webhooks: 0 re-sealed under MALLARD_SECRET, 1 already under it, 0 unreadable/m);
    expect(second.stdout).toMatch(/^integrations: 0 re-sealed under MALLARD_SECRET, 1 already under it, 0 unreadable/m);
    expect(second.stdout).toMatch(/^user_mfa: 0 re-sealed under MALLARD_SECRET, 1 already under it, 0 unreadable/m);
    expect(second.stdout).toMatch(/^sso_connections: 0 re-sealed under MALLARD_SECRET, 1 already under it, 0 unreadable/m);
  });

  it('with the previous secret dropped: the key re-hashed during the overlap still works; one never used stops', async () => {
    forgetCredentials(h.store.db);
    after = await appWith(NEW, null);
    expect((await whoami(after, org.keys.secret)).statusCode).toBe(200);
    const unused = await whoami(after, org.keys.mcp);
    expect(unused.statusCode).toBe(401);
    expect(unused.json().error.code).toBe('invalid_key');
    // The kept answer, re-sealed by `secret rotate`, opens with the new secret alone: a retry replays it.
    const replay = await after.inject({ method: 'POST', url: '/v1/manage/webhooks', headers: { ...bearer(org.keys.secret), 'idempotency-key': 'rotation-hook-1' }, payload: { url: 'http://127.0.0.1:9/mallard-hook', events: ['deploy.recorded'] } });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect({ statusCode: replay.statusCode, body: replay.body }).toEqual(created);
    // The re-sealed authenticator secret still checks codes under the new secret alone (a later step than the enabling code's).
    h.clock.advance(30_000);
    const signIn = await after.inject({ method: 'POST', url: '/v1/auth/login', payload: { email: twoFactor.email, password: twoFactor.password, otp: totpAt(twoFactor.secret, h.clock.now()) } });
    expect(signIn.statusCode, signIn.body).toBe(200);
  });
});
