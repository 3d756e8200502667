// SSRF: with MALLARD_ALLOW_PRIVATE_TARGETS off, loopback, private, link-local and metadata
// targets are refused when a webhook or Slack integration is created, and again at send time
// after DNS resolution (a name that was public at creation and private at send time). DNS is
// an injected table, and a guard under every TCP socket of this process refuses any address
// that is not loopback and records it, so no packet ever leaves for one. Both dialects.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import net from 'node:net';
import { v7 as uuidv7 } from 'uuid';
import { checkTarget, isPrivateAddress } from '../src/delivery/targets.ts';
import { postJson } from '../src/delivery/http-post.ts';
import { runDeliveryOnce } from '../src/delivery/worker.ts';
import { bearer, createHarness, eachDialect, useHarness, type Org } from './helpers/harness.ts';
import { deliveryOptions, guard, guardViolations, installLoopbackGuard, Receiver, tableResolver } from './helpers/delivery-kit.ts';

installLoopbackGuard();

/** The brief's four literal targets, and the same refusal for a name resolving privately. */
const LITERALS = ['http://127.0.0.1/hook', 'http://169.254.169.254/latest/meta-data/', 'http://10.0.0.1/hook', 'http://[::1]/hook'];
const MORE_LITERALS = [
  'http://0.0.0.0/', 'http://127.1/', 'http://2130706433/', 'http://0x7f000001/', 'http://192.168.1.10/', 'http://172.16.5.4/',
  'http://100.64.0.1/', 'http://[fe80::1]/', 'http://[fd00::1]/', 'http://[::ffff:127.0.0.1]/', 'http://[::ffff:a9fe:a9fe]/', 'http://[::]/',
  'https://10.0.0.1:8443/x',
];

function dns() {
  const table: Record<string, string | string[]> = {
    'internal.test': '10.1.2.3',
    'metadata.test': '169.254.169.254',
    'localhost': '127.0.0.1',
    'v6.internal.test': 'fd12:3456::1',
    'mixed.test': ['203.0.113.7', '192.168.0.9'],
    'public.test': '203.0.113.10',
    'rebind.test': '203.0.113.11',
    'slack.hooks.test': '203.0.113.12',
  };
  return { table, resolver: tableResolver(table) };
}

describe('the address rules', () => {
  it('refuses every loopback, private, link-local, CGNAT, metadata, multicast and reserved address, and only those', () => {
    for (const a of ['127.0.0.1', '127.255.255.254', '10.0.0.1', '10.255.255.255', '172.16.0.1', '172.31.255.255', '192.168.0.1', '169.254.169.254',
      '100.64.0.1', '100.127.255.255', '0.0.0.0', '224.0.0.1', '255.255.255.255', '198.18.0.1', '192.0.0.170', '::1', '::', 'fe80::1', 'fc00::1', 'fd00:ec2::254',
      'ff02::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '::ffff:169.254.169.254', '64:ff9b::a9fe:a9fe', 'not-an-ip']) {
      expect(isPrivateAddress(a), a).toBe(true);
    }
    for (const a of ['203.0.113.10', '8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '169.253.255.255', '11.0.0.1', '2606:4700::1111', '::ffff:8.8.8.8']) {
      expect(isPrivateAddress(a), a).toBe(false);
    }
  });

  it('checkTarget resolves names with the injected resolver only, and refuses if any address is private', async () => {
    const { resolver } = dns();
    const policy = { allowPrivate: false, requireHttps: false, resolve: resolver };
    await expect(checkTarget('http://public.test/x', policy)).resolves.toMatchObject({ address: { address: '203.0.113.10', family: 4 } });
    for (const url of ['http://internal.test/', 'http://metadata.test/', 'http://localhost:8787/', 'http://v6.internal.test/', 'http://mixed.test/']) {
      await expect(checkTarget(url, policy), url).rejects.toMatchObject({ code: 'invalid_input', details: { field: 'url' } });
    }
    await expect(checkTarget('http://nowhere.test/', policy)).rejects.toMatchObject({ details: { reason: 'host does not resolve' } });
    expect(resolver.calls).not.toContain('127.0.0.1');
    // Allowed when the config says so; https required when it says so.
    await expect(checkTarget('http://internal.test/', { ...policy, allowPrivate: true })).resolves.toMatchObject({ address: { address: '10.1.2.3' } });
    await expect(checkTarget('http://public.test/', { ...policy, requireHttps: true })).rejects.toMatchObject({ details: { reason: 'must use https' } });
  });

  it('the guard under every socket refuses a non-loopback address after lookup (checked on a narrowed rule with 127.0.0.2)', async () => {
    const before = guardViolations.length;
    guard.allows = (a) => a === '127.0.0.1';
    try {
      const error = await new Promise<NodeJS.ErrnoException>((resolve) => {
        const socket = net.connect({ host: 'guard.test', port: 9, lookup: (_h, o, cb) => ((o as { all?: boolean }).all ? (cb as unknown as (e: null, a: object[]) => void)(null, [{ address: '127.0.0.2', family: 4 }]) : cb(null, '127.0.0.2', 4)) });
        socket.on('error', resolve);
      });
      expect(error.code).toBe('ECONNREFUSED');
      expect(guardViolations.slice(before)).toEqual(['127.0.0.2:9']);
      // And the sender itself, through its pinned lookup, meets the guard with the checked address.
      const sent = await postJson('http://guard.test:9/x', '{}', {}, { allowPrivate: true, requireHttps: false, resolve: async () => [{ address: '127.0.0.3', family: 4 }] });
      expect(sent).toMatchObject({ ok: false, statusCode: null });
      expect(guardViolations.slice(before)).toEqual(['127.0.0.2:9', '127.0.0.3:9']);
    } finally {
      guard.allows = (a) => /^127\./.test(a) || a === '::1' || /^::ffff:127\./i.test(a);
      guardViolations.splice(before);
    }
  });
});

eachDialect('SSRF refusals', ({ name, skip }) => {
  let receiver: Receiver;
  const d = dns();
  const table = d.table;

  beforeAll(async () => { receiver = await new Receiver().start(); });
  const h = useHarness(name, deliveryOptions({ config: { allowPrivateTargets: false }, resolver: d.resolver }));
  afterAll(async () => {
    await receiver?.close();
    // Nothing in this file ever tried to reach a non-loopback address.
    expect(guardViolations).toEqual([]);
  });
  beforeEach(() => {
    h.clock.set(Date.now());
    table['rebind.test'] = '203.0.113.11';
    table['slack.hooks.test'] = '203.0.113.12';
  });

  const create = (org: Org, url: string) => h.app.inject({ method: 'POST', url: '/v1/manage/webhooks', headers: bearer(org.keys.secret), payload: { url, events: ['deploy.recorded'] } });

  it.skipIf(skip)('creation refuses 127.0.0.1, 169.254.169.254, 10.0.0.1, [::1] and names resolving privately, with 400 invalid_input on url', async () => {
    const org = await h.org();
    const names = ['http://internal.test/hook', 'http://metadata.test/latest/meta-data/', 'http://localhost:8080/', 'http://v6.internal.test/', 'http://mixed.test/'];
    for (const url of [...LITERALS, ...MORE_LITERALS, ...names]) {
      const res = await create(org, url);
      expect(res.statusCode, url).toBe(400);
      expect(res.json().error, url).toMatchObject({ code: 'invalid_input', details: { field: 'url', reason: 'must not target a private, loopback, link-local or metadata address' } });
    }
    const unresolvable = await create(org, 'http://nowhere.test/');
    expect(unresolvable.json().error).toMatchObject({ code: 'invalid_input', details: { field: 'url', reason: 'host does not resolve' } });
    expect(await h.store.db.selectFrom('webhooks').select('id').where('site_id', '=', org.site_id).execute()).toHaveLength(0);
    // A public name is accepted (creation never connects).
    expect((await create(org, 'http://public.test/hook')).statusCode).toBe(201);
  });

  it.skipIf(skip)('PATCH to a private url is refused the same way and the stored url is unchanged', async () => {
    const org = await h.org();
    const made = await create(org, 'http://public.test/ok');
    const id = made.json().data.id;
    for (const url of [...LITERALS, 'http://internal.test/']) {
      const res = await h.app.inject({ method: 'PATCH', url: `/v1/manage/webhooks/${id}`, headers: bearer(org.keys.secret), payload: { url } });
      expect(res.statusCode, url).toBe(400);
      expect(res.json().error.details.field).toBe('url');
    }
    expect((await h.store.db.selectFrom('webhooks').select('url').where('id', '=', id).executeTakeFirstOrThrow()).url).toBe('http://public.test/ok');
  });

  it.skipIf(skip)('a Slack incoming-webhook URL that is private is refused at creation, on config.webhook_url', async () => {
    const org = await h.org();
    for (const url of [...LITERALS, 'http://internal.test/services/x']) {
      const res = await h.app.inject({ method: 'POST', url: '/v1/manage/integrations', headers: bearer(org.keys.secret), payload: { provider: 'slack', config: { webhook_url: url } } });
      expect(res.statusCode, url).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'invalid_input', details: { field: 'config.webhook_url' } });
    }
    expect(await h.store.db.selectFrom('integrations').select('id').where('site_id', '=', org.site_id).execute()).toHaveLength(0);
  });

  it.skipIf(skip)('send time: a name public at creation and private at send time is refused before connecting; the attempt records why', async () => {
    const org = await h.org();
    const made = await create(org, 'http://rebind.test/hook');
    expect(made.statusCode).toBe(201);
    const id = made.json().data.id;
    for (const address of ['10.0.0.1', '127.0.0.1', '169.254.169.254', '::1']) {
      table['rebind.test'] = address;
      const res = await h.app.inject({ method: 'POST', url: `/v1/manage/webhooks/${id}/test`, headers: bearer(org.keys.secret) });
      expect(res.statusCode).toBe(200);
      expect(res.json().data).toMatchObject({ status: 'failed', last_status_code: null, last_error: 'refused: must not target a private, loopback, link-local or metadata address' });
    }
    // The worker refuses the same way for a real event, and keeps retrying on the schedule.
    table['rebind.test'] = '10.0.0.1';
    expect((await h.app.inject({ method: 'POST', url: '/v1/manage/deploys', headers: bearer(org.keys.secret), payload: { version: 'r1' } })).statusCode).toBe(201);
    await runDeliveryOnce(h.deliveryDeps());
    const delivery = await h.store.db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', id).where('event_type', '=', 'deploy.recorded').executeTakeFirstOrThrow();
    expect(delivery).toMatchObject({ status: 'pending', attempts: 1, last_status_code: null });
    expect(delivery.last_error).toMatch(/^refused: /);
    expect(receiver.requests).toHaveLength(0);
  });

  it.skipIf(skip)('send time: hooks stored with the four literal targets (say, before the config changed) are refused by the worker', async () => {
    const org = await h.org();
    const now = h.clock.now();
    const ids: string[] = [];
    for (const url of LITERALS) {
      const id = uuidv7();
      ids.push(id);
      await h.store.db.insertInto('webhooks').values({ id, site_id: org.site_id, url, events: '["deploy.recorded"]', secret_enc: h.secrets.encrypt('literal-secret-0123456789'), enabled: 1, created_at: now, updated_at: now }).execute();
    }
    await h.app.inject({ method: 'POST', url: '/v1/manage/deploys', headers: bearer(org.keys.secret), payload: { version: 'r2' } });
    await runDeliveryOnce(h.deliveryDeps());
    const rows = await h.store.db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', 'in', ids).execute();
    expect(rows).toHaveLength(4);
    for (const row of rows) expect(row.last_error, row.webhook_id).toBe('refused: must not target a private, loopback, link-local or metadata address');
    expect(receiver.requests).toHaveLength(0);
  });

  it.skipIf(skip)('send time: a Slack webhook URL that now resolves privately is refused, and so is a provider URL on a private address', async () => {
    const org = await h.org();
    const res = await h.app.inject({ method: 'POST', url: '/v1/manage/integrations', headers: bearer(org.keys.secret), payload: { provider: 'slack', config: { webhook_url: 'https://slack.hooks.test/services/T/B/X' } } });
    expect(res.statusCode).toBe(201);
    await h.app.inject({ method: 'POST', url: '/v1/manage/integrations', headers: bearer(org.keys.secret), payload: { provider: 'pagerduty', config: { routing_key: 'routing-key-0123456789' } } });
    const rule = await h.app.inject({ method: 'POST', url: '/v1/manage/alert-rules', headers: bearer(org.keys.secret), payload: { name: 'r', trigger_type: 'spike', threshold: 10, channels: ['slack', 'pagerduty'] } });
    expect(rule.statusCode).toBe(201);
    table['slack.hooks.test'] = '169.254.169.254';
    const { notify } = await import('../src/events/alert-notifications.ts');
    const ruleRow = await h.store.db.selectFrom('alert_rules').selectAll().where('id', '=', rule.json().data.id).executeTakeFirstOrThrow();
    const now = h.clock.now();
    const alert = {
      id: uuidv7(), site_id: org.site_id, rule_id: ruleRow.id, trigger_type: 'spike', page: '/x', severity: 'high', status: 'fired', message: 'm',
      score_before: 1, score_after: 20, condition_value: 19, threshold: 10, breakdown: '[]', fired_at: now, acknowledged_at: null, investigating_at: null,
      resolved_at: null, resolved_reason: null, last_notified_at: now, created_at: now, updated_at: now,
    };
    await h.store.db.transaction().execute(async (trx) => {
      await trx.insertInto('alerts').values(alert).execute();
      await notify(trx, ruleRow, alert, 'fired', now);
    });
    // The harness's PagerDuty base URL is http://127.0.0.1:9/pd: private, so refused too.
    await runDeliveryOnce(h.deliveryDeps());
    const failures = await h.store.db.selectFrom('alert_timeline').selectAll().where('alert_id', '=', alert.id).where('kind', '=', 'notification_failed').execute();
    expect(failures.map((f) => JSON.parse(f.details!)).map((d) => [d.channel, d.error]).sort()).toEqual([
      ['pagerduty', 'refused: must not target a private, loopback, link-local or metadata address'],
      ['slack', 'refused: must not target a private, loopback, link-local or metadata address'],
    ]);
  });

  it.skipIf(skip)('the resolved address is the one connected to: a name the injected resolver maps to loopback reaches the receiver (private targets allowed)', async () => {
    const pinnedDns = tableResolver({ 'pinned.test': '127.0.0.1' });
    const open = await createHarness(name, deliveryOptions({ config: { allowPrivateTargets: true }, resolver: pinnedDns }));
    try {
      const org = await open.org();
      const made = await open.app.inject({ method: 'POST', url: '/v1/manage/webhooks', headers: bearer(org.keys.secret), payload: { url: `http://pinned.test:${receiver.port}/pinned`, events: ['deploy.recorded'] } });
      expect(made.statusCode).toBe(201);
      const sent = await open.app.inject({ method: 'POST', url: `/v1/manage/webhooks/${made.json().data.id}/test`, headers: bearer(org.keys.secret) });
      expect(sent.json().data.status).toBe('delivered');
      const [req] = receiver.to('/pinned');
      // .test never resolves in real DNS: the only way here was the injected answer.
      expect(req.headers.host).toBe(`pinned.test:${receiver.port}`);
      expect(pinnedDns.calls.filter((c) => c === 'pinned.test').length).toBe(2); // once at creation, once at send
      // The same app refuses none of the literals (development and tests)...
      expect((await open.app.inject({ method: 'POST', url: '/v1/manage/webhooks', headers: bearer(org.keys.secret), payload: { url: 'http://10.0.0.1/x', events: ['deploy.recorded'] } })).statusCode).toBe(201);
    } finally {
      await open.close();
    }
  });

  it.skipIf(skip)('production requires https as well', async () => {
    const prod = await createHarness(name, deliveryOptions({ config: { env: 'production', allowPrivateTargets: false }, resolver: tableResolver({ 'public.test': '203.0.113.10' }) }));
    try {
      const org = await prod.org();
      const res = await prod.app.inject({ method: 'POST', url: '/v1/manage/webhooks', headers: bearer(org.keys.secret), payload: { url: 'http://public.test/x', events: ['deploy.recorded'] } });
      expect(res.json().error).toMatchObject({ code: 'invalid_input', details: { field: 'url', reason: 'must use https' } });
      const ok = await prod.app.inject({ method: 'POST', url: '/v1/manage/webhooks', headers: bearer(org.keys.secret), payload: { url: 'https://public.test/x', events: ['deploy.recorded'] } });
      expect(ok.statusCode).toBe(201);
    } finally {
      await prod.close();
    }
  });
});
