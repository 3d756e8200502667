// Secret hygiene over a whole working day: bootstrap and log in, keys of every type, webhooks
// (generated and chosen secrets, a rotation), integrations holding credentials (Slack webhook
// URL and bot token, PagerDuty routing key, Linear and GitHub tokens), email over an SMTP
// server that wants a password, an invitation redeemed, ingest, a pipeline cycle, an alert on
// every channel, deliveries to a loopback receiver, tickets, MCP calls, and the usual failures
// (unknown, revoked and tampered credentials, bad passwords, invalid input, broken JSON).
// Every response (status, headers, body) and every log line is kept and scanned: a secret may
// only appear in the responses the docs call one-time reveals (a new key, a generated webhook
// secret at creation or rotation, never one the caller chose, an invitation, the login answer,
// and the idempotent replay of one), never in a log line. Then the store is read directly: keys and tokens are HMACs, secrets
// are AES-GCM ciphertext, and no cell, nor any base64 or hex reading of it, holds a secret.
// Both dialects.
import { v7 as uuidv7 } from 'uuid';
import { sql, type Kysely } from 'kysely';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Secrets } from '../src/auth/secrets.ts';
import { runDeliveryOnce } from '../src/delivery/worker.ts';
import { notify } from '../src/events/alert-notifications.ts';
import { runCycle } from '../src/pipeline/cycle.ts';
import type { AlertsTable } from '../src/store/tables.ts';
import { bearer, eachDialect, useHarness } from './helpers/harness.ts';
import { deliveryOptions, deliverySuiteHooks, installLoopbackGuard, MailServer, Receiver } from './helpers/delivery-kit.ts';
import { hex32 } from './helpers/ingest-kit.ts';

// Every socket of this file may only reach loopback.
installLoopbackGuard();

const SMTP_LOGIN = { user: 'mallard-mailer', password: 'smtp-Pa55word-never-logged-7781' };
// Credentials in the shapes of the real ones, each unique enough to be found anywhere.
const SLACK_WEBHOOK_PATH = '/slack-incoming/T0HYGIENE/B0HYGIENE/slackWebhookSecretPart0123';
const SLACK_BOT_TOKEN = 'xoxb-4242-4242-hygieneBotTokenSecret';
const PAGERDUTY_ROUTING_KEY = 'R0UTINGhygieneKEYpagerduty987654';
const LINEAR_API_KEY = 'lin_api_hygieneLinearApiKeySecret0123456';
const GITHUB_TOKEN = 'ghp_hygieneGithubTokenSecret0123456789ab';
const CHOSEN_WEBHOOK_SECRET = 'chosen-webhook-secret-hygiene-0042';
const ROTATED_CHOSEN_SECRET = 'rotated-chosen-secret-hygiene-0043';

// What a credential looks like, whoever made it: the scan finds them even if the list above misses one.
const SHAPES: Record<string, RegExp> = {
  'a JWT': /eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{10,}/g,
  'an API key': /svc_(?:sec|mcp|pub)_[0-9A-Za-z]{40}/g,
  'a webhook secret': /whsec_[A-Za-z0-9+/]{16,}={0,2}/g,
  'an invitation token': /mlt_[0-9A-Za-z]{40}/g,
};

/** The forms a value could leak in: as is, JSON-escaped, URL-encoded, base64 and base64url. */
const leakForms = (value: string) => [...new Set([
  value, JSON.stringify(value).slice(1, -1), encodeURIComponent(value),
  Buffer.from(value).toString('base64'), Buffer.from(value).toString('base64url'),
])];

/** A stored text cell, and every base64 or hex reading of it and of its parts. */
function readings(cell: string): string[] {
  const out = [cell];
  for (const part of [cell, ...cell.split(/[.\s:$,;"]+/)]) {
    if (/^[A-Za-z0-9+/_-]{8,}={0,2}$/.test(part)) out.push(Buffer.from(part, 'base64').toString('latin1'), Buffer.from(part, 'base64url').toString('latin1'));
    if (/^(?:[0-9a-f]{2})+$/i.test(part)) out.push(Buffer.from(part, 'hex').toString('latin1'));
  }
  return out;
}

const SEALED = /^v1\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]+$/;

eachDialect('secret hygiene', ({ name, skip }) => {
  let receiver: Receiver;
  let mail: MailServer;
  beforeAll(async () => {
    receiver = await new Receiver().start();
    mail = await new MailServer(SMTP_LOGIN).start();
  });
  const h = useHarness(name, () => deliveryOptions({
    config: {
      smtpUrl: `smtp://${SMTP_LOGIN.user}:${SMTP_LOGIN.password}@127.0.0.1:${mail.port}`,
      providers: { slackApi: receiver.url('/slack-api'), pagerdutyEvents: receiver.url('/pd/v2/enqueue'), linearApi: receiver.url('/linear'), githubApi: receiver.url('/github') },
    },
  }));
  deliverySuiteHooks(h, () => receiver);
  afterAll(async () => { await mail?.close(); });

  it.skipIf(skip)('secrets appear only in their one-time reveals, never in a log line, and are stored only as hashes or ciphertext', async () => {
    /** Every answer of the scenario, by what the request was. */
    const exchanges: { what: string; text: string }[] = [];
    /** Every secret of the scenario, with the exchanges allowed to show it. */
    const secrets: { label: string; value: string; revealedIn: string[] }[] = [];
    const secret = (label: string, value: string, revealedIn: string[] = []) => {
      expect(typeof value, label).toBe('string');
      expect(value.length, label).toBeGreaterThanOrEqual(12);
      secrets.push({ label, value, revealedIn });
      return value;
    };
    async function call(what: string, options: InjectOptions, status?: number) {
      expect(exchanges.map((e) => e.what), 'each exchange has its own name').not.toContain(what);
      const res = await h.app.inject(options);
      exchanges.push({ what, text: `${res.statusCode}\n${JSON.stringify(res.headers)}\n${res.body}` });
      if (status !== undefined) expect(res.statusCode, `${what}: ${res.body}`).toBe(status);
      expect(res.statusCode, `${what} answered 5xx: ${res.body}`).toBeLessThan(500);
      return res;
    }

    // ---- an org, logging in, and keys of every type
    secret('MALLARD_SECRET', h.config.secret);
    secret('SMTP password', SMTP_LOGIN.password);
    const org = await h.org('Hygiene');
    secret('bootstrap password', org.password);
    secret('bootstrap secret key', org.keys.secret);
    secret('bootstrap MCP key', org.keys.mcp);
    secret('bootstrap publishable key', org.keys.publishable);
    secret('harness-signed JWT', org.jwt);
    secret('a wrong password', `${org.password}-wrong`);
    await call('login with a wrong password', { method: 'POST', url: '/v1/auth/login', payload: { email: org.email, password: `${org.password}-wrong` } }, 401);
    const login = await call('login', { method: 'POST', url: '/v1/auth/login', payload: { email: org.email, password: org.password } }, 200);
    const jwt = secret('login JWT', login.json().data.token, ['login']);
    const owner = bearer(jwt);

    const keyCreated = async (what: string, payload: object, headers: Record<string, string> = {}) =>
      (await call(what, { method: 'POST', url: '/v1/manage/keys', headers: { ...owner, ...headers }, payload }, 201)).json().data.key as string;
    const orgKeyBody = { key_type: 'secret', scopes: ['query:read', 'manage:write', 'ingest:write', 'webhook:write'], name: 'CI' };
    const secretKey = secret('created secret key', await keyCreated('create a secret key', orgKeyBody, { 'idempotency-key': 'hygiene-key-1' }), ['create a secret key', 'create a secret key again (idempotent replay)']);
    const replay = await call('create a secret key again (idempotent replay)', { method: 'POST', url: '/v1/manage/keys', headers: { ...owner, 'idempotency-key': 'hygiene-key-1' }, payload: orgKeyBody }, 201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    const mcpKey = secret('created MCP key', await keyCreated('create an MCP key', { key_type: 'mcp', site_id: org.site_id }), ['create an MCP key']);
    const publishableKey = secret('created publishable key', await keyCreated('create a publishable key', { key_type: 'publishable', site_id: org.site_id }), ['create a publishable key']);
    const doomedKey = await keyCreated('create a key to revoke', { key_type: 'secret', site_id: org.site_id, scopes: ['query:read'] });
    secret('revoked key', doomedKey, ['create a key to revoke']);
    const keys = await call('list keys', { method: 'GET', url: '/v1/manage/keys', headers: owner }, 200);
    const doomedId = (keys.json().data.keys as { id: string; name: string | null; key_type: string; scopes: string[] }[]).find((k) => k.scopes.length === 1 && k.scopes[0] === 'query:read')!.id;
    await call('revoke a key', { method: 'DELETE', url: `/v1/manage/keys/${doomedId}`, headers: owner }, 200);
    await call('whoami with the created secret key', { method: 'GET', url: `/v1/query/whoami?site_id=${org.site_id}`, headers: bearer(secretKey) }, 200);
    await call('whoami with the created MCP key', { method: 'GET', url: '/v1/query/whoami', headers: bearer(mcpKey) }, 200);

    // ---- failures: unknown, revoked and tampered credentials
    secret('a made-up secret key', `svc_sec_${'Z'.repeat(36)}9999`);
    await call('whoami with a made-up key', { method: 'GET', url: '/v1/query/whoami', headers: bearer(`svc_sec_${'Z'.repeat(36)}9999`) }, 401);
    await call('whoami with the revoked key', { method: 'GET', url: '/v1/query/whoami', headers: bearer(doomedKey) }, 401);
    const tampered = secret('tampered JWT', `${jwt.slice(0, -4)}${jwt.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`);
    await call('whoami with a tampered JWT', { method: 'GET', url: '/v1/query/whoami', headers: bearer(tampered) }, 401);
    await call('ingest with the MCP key', { method: 'POST', url: '/v1/ingest', headers: bearer(mcpKey), payload: { sid: hex32(), ts: h.clock.now(), events: [{ type: 'pageview', ts: h.clock.now(), page: '/' }] } }, 403);
    await call('query with the publishable key', { method: 'GET', url: '/v1/query/scores', headers: bearer(publishableKey) }, 403);

    // ---- webhooks: a generated secret, a chosen one, a rotation, and a refused secret
    const hooksUrl = '/v1/manage/webhooks';
    const events = ['deploy.recorded', 'alert.fired', 'alert.resolved', 'issue.updated'];
    const generated = await call('create a webhook with a generated secret', { method: 'POST', url: hooksUrl, headers: bearer(org.keys.secret), payload: { url: receiver.url('/hooks/generated'), events } }, 201);
    const generatedHook = generated.json().data.id as string;
    const firstGenerated = secret('generated webhook secret', generated.json().data.secret, ['create a webhook with a generated secret']);
    const chosen = await call('create a webhook with a chosen secret', { method: 'POST', url: hooksUrl, headers: bearer(org.keys.secret), payload: { url: receiver.url('/hooks/chosen'), events, secret: CHOSEN_WEBHOOK_SECRET } }, 201);
    const chosenHook = chosen.json().data.id as string;
    secret('too short webhook secret', 'short-secret-77');
    await call('create a webhook with a too short secret', { method: 'POST', url: hooksUrl, headers: bearer(org.keys.secret), payload: { url: receiver.url('/hooks/x'), events, secret: 'short-secret-77' } }, 400);
    secret('webhook secret in broken JSON', 'broken-json-webhook-secret-0044');
    await call('create a webhook with broken JSON', { method: 'POST', url: hooksUrl, headers: { ...bearer(org.keys.secret), 'content-type': 'application/json' }, payload: `{"url":"${receiver.url('/hooks/x')}","secret":"broken-json-webhook-secret-0044",` }, 400);
    const rotated = await call('rotate the generated secret', { method: 'POST', url: `${hooksUrl}/${generatedHook}/rotate-secret`, headers: bearer(org.keys.secret) }, 200);
    const rotatedGenerated = secret('rotated generated webhook secret', rotated.json().data.secret, ['rotate the generated secret']);
    secret('chosen webhook secret', CHOSEN_WEBHOOK_SECRET);
    const rotatedChosen = await call('rotate the chosen secret to another chosen one', { method: 'POST', url: `${hooksUrl}/${chosenHook}/rotate-secret`, headers: bearer(org.keys.secret), payload: { secret: ROTATED_CHOSEN_SECRET, grace_hours: 1 } }, 200);
    // A secret the caller chose is never echoed, at rotation as at creation.
    expect(rotatedChosen.json().data).not.toHaveProperty('secret');
    secret('rotated chosen webhook secret', ROTATED_CHOSEN_SECRET);
    await call('list webhooks', { method: 'GET', url: hooksUrl, headers: bearer(org.keys.secret) }, 200);
    await call('test-send the generated webhook', { method: 'POST', url: `${hooksUrl}/${generatedHook}/test`, headers: bearer(org.keys.secret) }, 200);

    // ---- integrations holding credentials, and refused configs that must not echo theirs
    const integrate = (what: string, payload: object, status: number, key = org.keys.secret) =>
      call(what, { method: 'POST', url: '/v1/manage/integrations', headers: bearer(key), payload }, status);
    secret('Slack webhook URL', receiver.url(SLACK_WEBHOOK_PATH));
    secret('Slack bot token', SLACK_BOT_TOKEN);
    secret('PagerDuty routing key', PAGERDUTY_ROUTING_KEY);
    secret('Linear API key', LINEAR_API_KEY);
    secret('GitHub token', GITHUB_TOKEN);
    secret('refused Slack URL', 'ftp://hooks.slack.example/services/refusedSlackSecret99');
    secret('token beside a bad repo', 'ghp_refusedBesideBadRepoSecret0123456');
    await integrate('connect Slack with a non-http URL', { provider: 'slack', config: { webhook_url: 'ftp://hooks.slack.example/services/refusedSlackSecret99' } }, 400);
    await integrate('connect GitHub with a bad repo', { provider: 'github', config: { token: 'ghp_refusedBesideBadRepoSecret0123456', repo: 'not a repo' } }, 400);
    await integrate('connect PagerDuty with an unknown field', { provider: 'pagerduty', config: { routing_key: PAGERDUTY_ROUTING_KEY, extra: PAGERDUTY_ROUTING_KEY } }, 400);
    await integrate('connect Slack', { provider: 'slack', config: { webhook_url: receiver.url(SLACK_WEBHOOK_PATH) } }, 201);
    await integrate('connect PagerDuty', { provider: 'pagerduty', config: { routing_key: PAGERDUTY_ROUTING_KEY } }, 201);
    await integrate('connect Linear', { provider: 'linear', config: { api_key: LINEAR_API_KEY, team_id: 'team-hygiene' } }, 201);
    await integrate('connect GitHub', { provider: 'github', config: { token: GITHUB_TOKEN, repo: 'acme/web' } }, 201);
    await integrate('connect Slack again (conflict)', { provider: 'slack', config: { webhook_url: receiver.url(SLACK_WEBHOOK_PATH) } }, 409);
    const site2 = await call('create a second site', { method: 'POST', url: '/v1/manage/site', headers: owner, payload: { name: 'Docs', url: 'https://docs.hygiene.example' } }, 201);
    const site2Id = site2.json().data.id as string;
    await call('connect Slack by bot token on the second site', { method: 'POST', url: '/v1/manage/integrations', headers: owner, payload: { site_id: site2Id, provider: 'slack', config: { bot_token: SLACK_BOT_TOKEN, channel: '#alerts' } } }, 201);
    await call('list integrations', { method: 'GET', url: '/v1/manage/integrations', headers: bearer(org.keys.secret) }, 200);
    await call('list the second site\'s integrations', { method: 'GET', url: `/v1/manage/integrations?site_id=${site2Id}`, headers: owner }, 200);

    // ---- an invitation, redeemed once, and the new member logging in
    const invited = await call('invite a member', { method: 'POST', url: '/v1/manage/members', headers: owner, payload: { email: 'new-member@hygiene.example', role: 'member' } }, 201);
    const invitation = secret('invitation token', invited.json().data.invitation.token, ['invite a member']);
    const memberPassword = secret('member password', 'member-Pa55word-hygiene-0045');
    await call('set a password with the invitation', { method: 'POST', url: '/v1/auth/set-password', payload: { token: invitation, password: memberPassword } }, 200);
    secret('second password for a used invitation', 'again-Pa55word-hygiene-0046');
    await call('set a password with the used invitation', { method: 'POST', url: '/v1/auth/set-password', payload: { token: invitation, password: 'again-Pa55word-hygiene-0046' } }, 400);
    const madeUpToken = secret('made-up invitation token', `mlt_${'q'.repeat(36)}4848`);
    secret('password beside a made-up token', 'made-up-Pa55word-hygiene-0047');
    await call('set a password with a made-up token', { method: 'POST', url: '/v1/auth/set-password', payload: { token: madeUpToken, password: 'made-up-Pa55word-hygiene-0047' } }, 400);
    const memberLogin = await call('member login', { method: 'POST', url: '/v1/auth/login', payload: { email: 'new-member@hygiene.example', password: memberPassword } }, 200);
    const memberJwt = secret('member login JWT', memberLogin.json().data.token, ['member login']);
    await call('list members', { method: 'GET', url: '/v1/manage/members', headers: owner }, 200);
    await call('login with an unknown field holding the password', { method: 'POST', url: '/v1/auth/login', payload: { email: 'new-member@hygiene.example', password: memberPassword, passwd: memberPassword } }, 400);

    // ---- ingest, a pipeline cycle, reads
    const sid = hex32();
    const t = h.clock.now();
    const ingested = await call('ingest with the publishable key', {
      method: 'POST', url: '/v1/ingest', headers: bearer(publishableKey),
      payload: { sid, vid: hex32(), ts: t, events: [{ type: 'pageview', ts: t - 5000, page: '/checkout' }, { type: 'signal', ts: t - 4000, page: '/checkout', signal_type: 'rage_click', element: 'button#pay', label: 'Pay', confidence: 1 }] },
    }, 202);
    expect(ingested.json().data.rejected).toBe(0);
    await call('ingest with the publishable key in the body', { method: 'POST', url: '/v1/ingest', payload: { key: publishableKey, sid, ts: t, events: [{ type: 'pageview', ts: t - 3000, page: '/cart' }] } }, 202);
    expect((await runCycle(h.store.db, org.site_id, h.clock.now(), { intervalMs: 15 * 60_000, clock: h.clock })).status).toBe('done');
    for (const path of ['/v1/query/scores', '/v1/query/issues', '/v1/query/alerts', `/v1/query/session?session_id=${sid}`, '/v1/query/mcp/context', '/v1/query/raw?table=events', '/v1/query/export/events.csv']) {
      await call(`read ${path}`, { method: 'GET', url: path, headers: bearer(org.keys.secret) }, 200);
    }

    // ---- an alert on every channel, a deploy, an issue triaged with a ticket, all delivered
    receiver.respond((r) => (r.url === '/linear' ? { status: 200, body: JSON.stringify({ data: { issueCreate: { success: true, issue: { id: 'lin-1', identifier: 'ENG-42', url: 'https://linear.example/ENG-42' } } } }) } : undefined));
    receiver.respond((r) => (r.url === '/github/repos/acme/web/issues' ? { status: 201, body: JSON.stringify({ number: 7, html_url: 'https://github.example/acme/web/issues/7' }) } : undefined));
    receiver.respond((r) => (r.url === '/slack-api/chat.postMessage' ? { status: 200, body: '{"ok":true}' } : undefined));
    const rule = await call('create an alert rule on every channel', { method: 'POST', url: '/v1/manage/alert-rules', headers: bearer(org.keys.secret), payload: { name: 'Checkout spike', trigger_type: 'spike', threshold: 10, channels: ['webhook', 'slack', 'pagerduty', 'email'] } }, 201);
    const alert = await fireAlert(org.site_id, rule.json().data.id);
    await call('record a deploy', { method: 'POST', url: '/v1/manage/deploys', headers: bearer(secretKey), payload: { version: 'v1.2.3', site_id: org.site_id } }, 201);
    const issueId = await insertIssue(org.site_id);
    await call('triage an issue', { method: 'PATCH', url: `/v1/manage/issues/${issueId}?site_id=${org.site_id}`, headers: bearer(memberJwt), payload: { status: 'triaged', note: 'looking' } }, 200);
    await call('ticket in Linear', { method: 'POST', url: `/v1/manage/issues/${issueId}/ticket`, headers: bearer(org.keys.secret), payload: { provider: 'linear' } }, 201);
    const issue2 = await insertIssue(org.site_id);
    await call('ticket in GitHub', { method: 'POST', url: `/v1/manage/issues/${issue2}/ticket`, headers: bearer(org.keys.secret), payload: { provider: 'github' } }, 201);
    await runDeliveryOnce(h.deliveryDeps());
    await call('resolve the alert', { method: 'PATCH', url: `/v1/manage/alerts/${alert.id}`, headers: bearer(org.keys.secret), payload: { status: 'resolved', resolved_reason: 'fixed' } }, 200);
    await runDeliveryOnce(h.deliveryDeps());
    // A Slack message by bot token, from the second site's alert.
    const rule2 = await call('create an alert rule on Slack for the second site', { method: 'POST', url: '/v1/manage/alert-rules', headers: owner, payload: { site_id: site2Id, name: 'Docs spike', trigger_type: 'spike', threshold: 10, channels: ['slack'] } }, 201);
    await fireAlert(site2Id, rule2.json().data.id);
    await runDeliveryOnce(h.deliveryDeps());

    // Everything reached its receiver with its credential: the scenario did exercise them.
    expect(receiver.to(SLACK_WEBHOOK_PATH)).toHaveLength(1);
    expect(receiver.to('/slack-api/chat.postMessage')[0].headers.authorization).toBe(`Bearer ${SLACK_BOT_TOKEN}`);
    expect(receiver.to('/pd/v2/enqueue').map((r) => JSON.parse(r.body).routing_key)).toEqual([PAGERDUTY_ROUTING_KEY, PAGERDUTY_ROUTING_KEY]);
    expect(receiver.to('/linear')[0].headers.authorization).toBe(LINEAR_API_KEY);
    expect(receiver.to('/github/repos/acme/web/issues')[0].headers.authorization).toBe(`Bearer ${GITHUB_TOKEN}`);
    // The invitation's mail (it carries the token to the invitee: its delivery, not a leak) and the alert's, to the org's members.
    expect(mail.mails.map((m) => m.to)).toEqual([['new-member@hygiene.example'], [org.email, 'new-member@hygiene.example']]);
    expect(receiver.to('/hooks/generated').length).toBeGreaterThanOrEqual(4);
    expect(receiver.to('/hooks/chosen').length).toBeGreaterThanOrEqual(3);
    const deliveries = await call('list deliveries', { method: 'GET', url: `${hooksUrl}/${generatedHook}/deliveries`, headers: bearer(org.keys.secret) }, 200);
    expect(deliveries.json().data.deliveries.every((d: { status: string }) => d.status === 'delivered')).toBe(true);
    await call('read the alert with its timeline', { method: 'GET', url: `/v1/query/alerts/${alert.id}`, headers: bearer(org.keys.secret) }, 200);
    await call('read the audit log', { method: 'GET', url: '/v1/manage/audit-log', headers: owner }, 200);

    // ---- MCP over HTTP with the MCP key
    const mcp = (what: string, body: object) => call(what, { method: 'POST', url: '/v1/mcp', headers: { ...bearer(mcpKey), accept: 'application/json, text/event-stream' }, payload: body }, 200);
    await mcp('MCP initialize', { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'hygiene', version: '1' } } });
    const whoami = await mcp('MCP whoami', { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'whoami', arguments: {} } });
    expect(whoami.body).toContain(org.site_id);
    await mcp('MCP site context', { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'get_site_context', arguments: {} } });
    await mcp('MCP list alerts', { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'list_alerts', arguments: {} } });

    // ---- logging out, and the token that no longer works
    await call('logout', { method: 'POST', url: '/v1/auth/logout', headers: owner }, 200);
    await call('whoami with the logged-out JWT', { method: 'GET', url: '/v1/query/whoami', headers: owner }, 401);
    await call('metrics', { method: 'GET', url: '/metrics' });

    // ================================ the scan of answers and logs
    expect(h.logs.length).toBeGreaterThan(exchanges.length); // a line per request at least: the logs were captured
    const logText = h.logs.join('');
    for (const s of secrets) {
      const forms = leakForms(s.value);
      const shownIn = exchanges.filter((e) => forms.some((f) => e.text.includes(f))).map((e) => e.what);
      expect(shownIn, `${s.label} shown outside its one-time reveal`).toEqual(s.revealedIn);
      expect(forms.filter((f) => logText.includes(f)), `${s.label} in the logs`).toEqual([]);
    }
    // Anything shaped like a credential in an answer is one that answer may reveal; none in the logs.
    for (const e of exchanges) {
      const allowed = secrets.filter((s) => s.revealedIn.includes(e.what)).map((s) => s.value);
      for (const [shape, pattern] of Object.entries(SHAPES)) {
        const found = [...e.text.matchAll(pattern)].map((m) => m[0]).filter((m) => !allowed.includes(m));
        expect(found, `${shape} in the answer to "${e.what}"`).toEqual([]);
      }
    }
    for (const [shape, pattern] of Object.entries(SHAPES)) expect(logText.match(pattern), `${shape} in the logs`).toBeNull();

    // ================================ the store, read directly
    const tables = await everyTable();
    expect(Object.keys(tables)).toEqual(expect.arrayContaining(['api_keys', 'webhooks', 'integrations', 'idempotency_keys', 'user_tokens', 'users']));
    for (const [table, rows] of Object.entries(tables)) {
      for (const row of rows) {
        for (const [column, value] of Object.entries(row)) {
          if (typeof value !== 'string') continue;
          const read = readings(value);
          for (const s of secrets) expect(read.some((r) => r.includes(s.value)), `${s.label} readable in ${table}.${column}`).toBe(false);
        }
      }
    }

    // Keys and tokens are HMACs under the service's key: the row is found by hashing the raw value.
    const keyRows = tables.api_keys;
    for (const raw of [org.keys.secret, org.keys.mcp, org.keys.publishable, secretKey, mcpKey, publishableKey, doomedKey]) {
      const hash = h.secrets.hmac('api-key', raw);
      expect(hash).toMatch(/^[0-9a-f]{64}$/);
      expect(keyRows.filter((r) => r.key_hash === hash)).toHaveLength(1);
    }
    expect(tables.user_tokens.filter((r) => r.token_hash === h.secrets.hmac('token', invitation))).toHaveLength(1);

    // Secrets are sealed: v1.<iv>.<tag>.<ciphertext>, opened by the service's key to the value
    // that was given, and by no other key.
    const stranger = new Secrets('another-installation-secret-0123456789abc');
    const opens = (sealed: unknown, expected: (plain: string) => void) => {
      expect(sealed).toMatch(SEALED);
      expected(h.secrets.decrypt(sealed as string));
      expect(() => stranger.decrypt(sealed as string)).toThrow();
    };
    const hookRow = (id: string) => tables.webhooks.find((r) => r.id === id)!;
    opens(hookRow(generatedHook).secret_enc, (p) => expect(p).toBe(rotatedGenerated));
    opens(hookRow(generatedHook).previous_secret_enc, (p) => expect(p).toBe(firstGenerated));
    opens(hookRow(chosenHook).secret_enc, (p) => expect(p).toBe(ROTATED_CHOSEN_SECRET));
    opens(hookRow(chosenHook).previous_secret_enc, (p) => expect(p).toBe(CHOSEN_WEBHOOK_SECRET));
    const configs = tables.integrations.map((r) => { let plain = ''; opens(r.config_enc, (p) => { plain = p; }); return JSON.parse(plain) as Record<string, string>; });
    expect(configs).toEqual(expect.arrayContaining([
      { webhook_url: receiver.url(SLACK_WEBHOOK_PATH) }, { bot_token: SLACK_BOT_TOKEN, channel: '#alerts' }, { routing_key: PAGERDUTY_ROUTING_KEY },
      { api_key: LINEAR_API_KEY, team_id: 'team-hygiene' }, { token: GITHUB_TOKEN, repo: 'acme/web' },
    ]));
    const kept = tables.idempotency_keys.filter((r) => r.key === 'hygiene-key-1');
    expect(kept).toHaveLength(1);
    opens(kept[0].response, (p) => expect(JSON.parse(p).data.key).toBe(secretKey));
  });

  /** An alert of the rule as the pipeline fires it: the row, its timeline and its notifications, in one transaction. */
  async function fireAlert(siteId: string, ruleId: string) {
    const now = h.clock.now();
    const ruleRow = await h.store.db.selectFrom('alert_rules').selectAll().where('id', '=', ruleId).executeTakeFirstOrThrow();
    const alert: AlertsTable = {
      id: uuidv7(), site_id: siteId, rule_id: ruleId, trigger_type: 'spike', page: '/checkout', severity: 'critical', status: 'fired',
      message: 'Checkout spike: confusion on /checkout rose 24 points in one cycle', score_before: 31, score_after: 55,
      condition_value: 24, threshold: 10, breakdown: JSON.stringify([{ signal: 'rage_click', share: 1 }]),
      fired_at: now, acknowledged_at: null, investigating_at: null, resolved_at: null, resolved_reason: null, last_notified_at: now, created_at: now, updated_at: now,
    };
    await h.store.db.transaction().execute(async (trx) => {
      await trx.insertInto('alerts').values(alert).execute();
      await notify(trx, ruleRow, alert, 'fired', now);
    });
    return alert;
  }

  async function insertIssue(siteId: string) {
    const now = h.clock.now();
    const id = uuidv7();
    await h.store.db.insertInto('ux_issues').values({
      id, site_id: siteId, fingerprint: `fp-${id}`, title: 'Rage clicks on Pay', page: '/checkout', element_selector: 'button#pay',
      element_label: 'Pay', type: 'rage_click', severity: 'high', severity_score: 0.8, severity_manual: null, status: 'open', assigned_to: null,
      signal_count: 12, session_count: 9, user_count: 9, first_seen_at: now, last_seen_at: now, resolved_at: null, ignored_at: null,
      status_changed_at: now, created_at: now, updated_at: now, ticket_provider: null, ticket_id: null, ticket_url: null,
    }).execute();
    return id;
  }

  /** Every row of every table of this store (this test's private schema on PostgreSQL). */
  async function everyTable(): Promise<Record<string, Record<string, unknown>[]>> {
    const db = h.store.db as unknown as Kysely<Record<string, Record<string, unknown>>>;
    const names = h.store.dialect === 'postgres'
      ? (await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(db)).rows
      : (await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`.execute(db)).rows;
    const out: Record<string, Record<string, unknown>[]> = {};
    for (const { name: table } of names) out[table] = await db.selectFrom(table).selectAll().execute();
    return out;
  }
});
