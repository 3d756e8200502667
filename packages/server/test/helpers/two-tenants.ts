// Two tenants for the route security test. Org A holds one record of every kind a route can
// name (a second site, an issue, an alert, a rule, a webhook and a delivery, an integration, a
// deploy, a saved funnel, a member, a key, a session), users at every role and keys of every type and single
// scope. Org B holds only credentials: a site-scoped key, an org-scoped key and its owner.
// Everything is made through the API and the pipeline, as a customer's data would be.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { SCOPES, type KeyType, type Scope } from '../../src/auth/api-keys.ts';
import { JWT_DEFAULT_SECONDS, signUserToken } from '../../src/auth/jwt.ts';
import type { Role } from '../../src/domain/context.ts';
import { bearer, type Harness, type Org } from './harness.ts';
import { cycle, ingest, INTERVAL, intervalTraffic } from './alert-traffic.ts';

export interface Credential {
  label: string;
  kind: 'none' | 'key' | 'jwt';
  keyType?: KeyType;
  scopes: readonly Scope[];
  /** A site-scoped key (never a user token). */
  siteScoped: boolean;
  role?: Role;
  /** The Authorization header; user tokens are signed afresh each time (a logout revokes one). */
  headers(): Promise<Record<string, string>>;
}

export interface TenantA {
  org: Org;
  /** Record ids by kind, on A's first site. */
  ids: Record<string, string>;
  siblingSiteId: string;
  /** Every credential of A, each used to call every route. */
  credentials: Credential[];
  /** The org's owner: the control credential for user-token routes. */
  owner: Credential;
  /** A site-scoped secret key with every scope, on the first site. */
  siteKey: Credential;
  /** Ids, names, emails, keys and URLs of A: none may reach anyone else. */
  secrets: string[];
  /** What only the sibling site shows (its name and URL): a key of the first site must not see them. */
  siblingSecrets: string[];
}

export interface TenantB {
  org: Org;
  /** B's site-scoped secret key, org-scoped secret key and owner. */
  credentials: Credential[];
}

export const NO_CREDENTIAL: Credential = { label: 'no credential', kind: 'none', scopes: [], siteScoped: false, headers: async () => ({}) };

const tag = () => Math.random().toString(36).slice(2, 10);

function keyCredential(label: string, key: string, keyType: KeyType, scopes: readonly Scope[], siteScoped: boolean): Credential {
  return { label, kind: 'key', keyType, scopes, siteScoped, headers: async () => bearer(key) };
}

function userCredential(h: Harness, label: string, userId: string, orgId: string, role: Role): Credential {
  return {
    label, kind: 'jwt', scopes: [], siteScoped: false, role,
    headers: async () => bearer((await signUserToken(h.secrets, userId, orgId, h.clock.now(), JWT_DEFAULT_SECONDS)).token),
  };
}

async function call(h: Harness, token: string, method: 'GET' | 'POST', url: string, payload?: unknown, status = method === 'POST' ? 201 : 200) {
  const res = await h.app.inject({ method, url, headers: bearer(token), ...(payload === undefined ? {} : { payload: payload as object }) });
  expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(status);
  return res.json().data;
}

export async function seedTenantA(h: Harness): Promise<TenantA> {
  const org = await h.org('Security A');
  const t = tag();
  const jwt = org.jwt;
  const admin = await h.user(org, 'admin');
  const member = await h.user(org, 'member');
  const viewer = await h.user(org, 'viewer');
  const victim = await h.user(org, 'viewer');

  const orgKey = await h.key(org, { scopes: [...SCOPES], name: `A org key ${t}` });
  const singleScope = await Promise.all(SCOPES.map(async (scope) => ({ scope, ...(await h.key(org, { siteId: org.site_id, scopes: [scope] })) })));
  const victimKey = await h.key(org, { siteId: org.site_id, scopes: ['query:read'], name: `A victim key ${t}` });

  const sibling = await call(h, jwt, 'POST', '/v1/manage/site', { name: `A sibling ${t}`, url: `https://sibling-${t}.example` });
  const rule = await call(h, jwt, 'POST', '/v1/manage/alert-rules', { site_id: org.site_id, name: `A budget ${t}`, trigger_type: 'budget', threshold: 10 });
  const webhookUrl = `http://127.0.0.1:9/a-hook-${t}`;
  const webhook = await call(h, jwt, 'POST', '/v1/manage/webhooks', { site_id: org.site_id, url: webhookUrl, events: ['alert.fired'] });
  // Nothing listens on port 9: the test send is refused and logged as a failed delivery.
  const delivery = await call(h, jwt, 'POST', `/v1/manage/webhooks/${webhook.id}/test`, undefined, 200);
  const integration = await call(h, jwt, 'POST', '/v1/manage/integrations', { site_id: org.site_id, provider: 'pagerduty', config: { routing_key: `a-routing-${t}` } });
  // Tickets need a tracker; nothing answers at its API address, so a ticket is an upstream_error.
  await call(h, jwt, 'POST', '/v1/manage/integrations', { site_id: org.site_id, provider: 'github', config: { token: `a-token-${t}`, repo: `a-${t}/repo` } });
  const deploy = await call(h, jwt, 'POST', `/v1/manage/deploys?site_id=${org.site_id}`, { version: `a-${t}` });
  const funnel = await call(h, jwt, 'POST', '/v1/manage/funnels', { site_id: org.site_id, name: `A funnel ${t}`, steps: ['/cart', '/checkout'] });
  // An SSO connection (stored as PUT /v1/manage/sso stores it; no provider answers discovery here).
  await seedSsoConnection(h, org.org_id, `https://a-idp-${t}.example`, `a-sso-secret-${t}`, `a-sso-${t}.example`);

  // One interval of traffic with rage clicks from two visitors: an issue, and the budget rule's alert.
  const from = h.clock.now() - 2 * INTERVAL;
  const visits = intervalTraffic(from, [
    { page: '/checkout', signals: [{ type: 'rage_click', element: 'button.pay', by: 0, count: 3 }, { type: 'rage_click', element: 'button.pay', by: 1, count: 3 }] },
    { page: '/cart' },
  ]);
  await ingest(h, org.keys.secret, visits);
  await cycle(h, org.site_id, from + INTERVAL);
  // A friction clip of the first session's rage click, and a snapshot of /checkout (desktop).
  const clip = await seedClips(h, org.keys.publishable, visits[0].sid, from + INTERVAL);
  const issues = await call(h, jwt, 'GET', `/v1/query/issues?site_id=${org.site_id}`);
  const alerts = await call(h, jwt, 'GET', `/v1/query/alerts?site_id=${org.site_id}`);
  expect(issues.issues.length, 'A has an issue').toBeGreaterThan(0);
  expect(alerts.alerts.length, 'A has an alert').toBeGreaterThan(0);

  // Two OAuth connections of the owner to the first site (stored as approving one stores it):
  // one for the person's own settings route, one for the admins' route.
  const connections = await Promise.all(['connection', 'oauth-connection'].map(async (kind) => {
    const id = randomUUID();
    await h.store.db.insertInto('oauth_grants').values({
      id, grant_id: `a-grant-${kind}-${t}`, client_id: `a-client-${kind}-${t}`, client_name: `A assistant ${kind} ${t}`, redirect_uri: `http://127.0.0.1:9/a-${kind}-${t}`,
      user_id: org.user_id, org_id: org.org_id, site_id: org.site_id, access: 'read', created_at: h.clock.now(), last_used_at: null, revoked_at: null,
    }).execute();
    return [kind, id] as const;
  }));

  const ids: Record<string, string> = {
    ...Object.fromEntries(connections),
    org: org.org_id, site: org.site_id, user: org.user_id, session: visits[0].sid, visitor: visits[0].vid,
    issue: issues.issues[0].id, alert: alerts.alerts[0].id, rule: rule.id, webhook: webhook.id, delivery: delivery.id,
    integration: integration.id, deploy: deploy.id, member: victim.membershipId, key: victimKey.id, funnel: funnel.id, clip,
  };

  const members = (await call(h, jwt, 'GET', '/v1/manage/members')).members as { id: string; user_id: string; email: string }[];
  const keys = (await call(h, jwt, 'GET', '/v1/manage/keys')).keys as { id: string; key_hint: string; name: string | null }[];
  const orgRow = await h.store.db.selectFrom('orgs').select('name').where('id', '=', org.org_id).executeTakeFirstOrThrow();
  const sites = (await call(h, jwt, 'GET', '/v1/manage/sites')).sites as { id: string; name: string; url: string }[];
  const secrets = [
    orgRow.name, ...Object.values(ids), ...visits.map((v) => v.sid),
    ...sites.flatMap((s) => [s.id, s.name, s.url]),
    ...members.flatMap((m) => [m.id, m.user_id, m.email]),
    ...keys.flatMap((k) => [k.id, k.key_hint, ...(k.name ? [k.name] : [])]),
    org.keys.secret, org.keys.mcp, org.keys.publishable, orgKey.key, victimKey.key, ...singleScope.map((k) => k.key),
    rule.name, funnel.name, webhookUrl, `a-${t}`, `a-routing-${t}`, `a-token-${t}`,
    `https://a-idp-${t}.example`, `a-sso-secret-${t}`, `a-sso-${t}.example`,
    `a-client-connection-${t}`, `a-client-oauth-connection-${t}`, `A assistant connection ${t}`, `A assistant oauth-connection ${t}`,
  ];

  const owner = userCredential(h, 'A owner', org.user_id, org.org_id, 'owner');
  const siteKey = keyCredential('A site-scoped secret key with every scope', org.keys.secret, 'secret', SCOPES, true);
  const credentials: Credential[] = [
    siteKey,
    keyCredential('A org-scoped secret key with every scope', orgKey.key, 'secret', SCOPES, false),
    keyCredential('A mcp key', org.keys.mcp, 'mcp', ['mcp:read'], true),
    keyCredential('A publishable key', org.keys.publishable, 'publishable', ['ingest:write'], true),
    ...singleScope.map(({ scope, key }) => keyCredential(`A secret key with only ${scope}`, key, 'secret', [scope], true)),
    owner,
    userCredential(h, 'A admin', admin.userId, org.org_id, 'admin'),
    userCredential(h, 'A member', member.userId, org.org_id, 'member'),
    userCredential(h, 'A viewer', viewer.userId, org.org_id, 'viewer'),
  ];
  return { org, ids, siblingSiteId: sibling.id, credentials, owner, siteKey, secrets, siblingSecrets: [sibling.name, sibling.url] };
}

/** A clip (returned: its id) and a desktop snapshot of /checkout in the session, through POST /v1/ingest/clips. */
async function seedClips(h: Harness, key: string, sid: string, at: number): Promise<string> {
  const signalId = 'ab'.repeat(8);
  const ua = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
  const sent = await h.app.inject({ method: 'POST', url: '/v1/ingest', payload: {
    key, sid, ts: at, meta: { ua }, events: [{ type: 'signal', ts: at, page: '/checkout', signal_type: 'rage_click', element: 'button.pay', id: signalId }],
  } });
  expect(sent.statusCode, sent.body).toBe(202);
  const events = [{ type: 4, timestamp: at, data: { href: 'https://shop.example/checkout', width: 1280, height: 720 } }, { type: 2, timestamp: at, data: { node: { type: 0, id: 1, childNodes: [] } } }];
  const common = { key, sid, page: '/checkout', meta: { ua }, started_at: at - 5000, ended_at: at, width: 1280, height: 720, events };
  const clip = await h.app.inject({ method: 'POST', url: '/v1/ingest/clips', payload: { ...common, id: 'cd'.repeat(16), kind: 'clip', signal_ids: [signalId] } });
  expect(clip.statusCode, clip.body).toBe(202);
  const snapshot = await h.app.inject({ method: 'POST', url: '/v1/ingest/clips', payload: { ...common, id: 'ef'.repeat(16), kind: 'snapshot', started_at: at } });
  expect(snapshot.json().data.stored, snapshot.body).toBe(true);
  return clip.json().data.clip_id as string;
}

/** An org's SSO connection row, its client secret sealed. */
async function seedSsoConnection(h: Harness, orgId: string, issuer: string, clientSecret: string, domain: string) {
  const now = h.clock.now();
  await h.store.db.insertInto('sso_connections').values({
    org_id: orgId, issuer, client_id: 'mallard', client_secret: h.secrets.encrypt(clientSecret), email_domains: JSON.stringify([domain]),
    jit: 0, default_role: 'viewer', required: 0, enabled: 1, created_at: now, updated_at: now,
  }).execute();
}

export async function seedTenantB(h: Harness): Promise<TenantB> {
  const org = await h.org('Security B');
  // B's own SSO connection: B reading or removing it is served, and shows nothing of A's.
  await seedSsoConnection(h, org.org_id, `https://b-idp-${tag()}.example`, `b-sso-secret-${tag()}`, `b-sso-${tag()}.example`);
  const orgKey = await h.key(org, { scopes: [...SCOPES] });
  return {
    org,
    credentials: [
      keyCredential('B site-scoped secret key', org.keys.secret, 'secret', SCOPES, true),
      keyCredential('B org-scoped secret key', orgKey.key, 'secret', SCOPES, false),
      userCredential(h, 'B owner', org.user_id, org.org_id, 'owner'),
    ],
  };
}
