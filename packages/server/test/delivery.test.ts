// The delivery worker, end to end against a local receiver that verifies every request with
// the published Standard Webhooks package: fan-out to subscribed hooks, the retry schedule,
// one success recorded after two 500s, a stable webhook-id, a worker restart mid-retry that
// loses nothing, a lease that only delays a crashed claim, and two workers never sending a
// delivery twice. Both dialects.
import { v7 as uuidv7 } from 'uuid';
import { beforeAll, expect, it } from 'vitest';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { postJson } from '../src/delivery/http-post.ts';
import { runDeliveryOnce, startDeliveryWorker } from '../src/delivery/worker.ts';
import { outbox } from '../src/delivery/queues.ts';
import { MAX_ATTEMPTS, RETRY_SCHEDULE_MS, SEND_TIMEOUT_MS } from '../src/events/jobs.ts';
import { bearer, eachDialect, useHarness, type Org } from './helpers/harness.ts';
import { deliveryOptions, deliverySuiteHooks, installLoopbackGuard, eventually, Receiver, type Received } from './helpers/delivery-kit.ts';

// Every socket of this file may only reach loopback.
installLoopbackGuard();

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

it('the retry schedule is DESIGN.md\'s: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then failed', () => {
  expect(RETRY_SCHEDULE_MS).toEqual([5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR]);
  expect(MAX_ATTEMPTS).toBe(8);
});

it('a send gives up on a receiver that never answers (10 s in production; shortened here), as a failed attempt', async () => {
  expect(SEND_TIMEOUT_MS).toBe(10_000);
  const server = createServer(() => { /* never answers */ });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const port = (server.address() as AddressInfo).port;
    const result = await postJson(`http://127.0.0.1:${port}/slow`, '{}', {}, { allowPrivate: true, requireHttps: false, resolve: async () => [] }, 50);
    expect(result).toMatchObject({ ok: false, statusCode: null, error: 'timed out after 50 ms' });
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

eachDialect('webhook delivery', ({ name, skip }) => {
  let receiver: Receiver;
  const quietLog = { error: (o: object, m: string) => { throw new Error(`worker logged an error: ${m} ${JSON.stringify(o)}`); } };

  beforeAll(async () => { receiver = await new Receiver().start(); });
  const h = useHarness(name, deliveryOptions());
  deliverySuiteHooks(h, () => receiver);

  /** A receiver-side check, as a customer would write it: verify, or answer 400. */
  function verifying(secret: string, path: string, answer: (r: Received) => number = () => 200) {
    const wh = new Webhook(secret);
    const outcomes: { id: string; ok: boolean; status: number }[] = [];
    receiver.respond((r) => {
      if (r.url !== path) return undefined;
      try {
        wh.verify(r.body, r.headers as Record<string, string>);
      } catch {
        outcomes.push({ id: String(r.headers['webhook-id']), ok: false, status: 400 });
        return { status: 400, body: 'bad signature' };
      }
      const status = answer(r);
      outcomes.push({ id: String(r.headers['webhook-id']), ok: true, status });
      return { status };
    });
    return outcomes;
  }

  async function hook(org: Org, path: string, events = ['deploy.recorded'], secret?: string) {
    const res = await h.app.inject({ method: 'POST', url: '/v1/manage/webhooks', headers: bearer(org.keys.secret), payload: { url: receiver.url(path), events, ...(secret ? { secret } : {}) } });
    expect(res.statusCode).toBe(201);
    return { id: res.json().data.id as string, secret: (secret ?? res.json().data.secret) as string };
  }

  async function deploy(org: Org, version: string) {
    const res = await h.app.inject({ method: 'POST', url: '/v1/manage/deploys', headers: bearer(org.keys.secret), payload: { version } });
    expect(res.statusCode).toBe(201);
    return res.json().data as { id: string; version: string };
  }

  const deliveriesOf = (webhookId: string) => h.store.db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', webhookId).orderBy('created_at').orderBy('id').execute();
  const attemptsOf = (deliveryId: string) => h.store.db.selectFrom('delivery_attempts').selectAll().where('delivery_id', '=', deliveryId).orderBy('attempt').execute();

  it.skipIf(skip)('an event reaches every enabled hook subscribed to it, signed so the standardwebhooks package verifies it', async () => {
    const org = await h.org();
    const generated = await hook(org, '/gen');
    const raw = await hook(org, '/raw', ['deploy.recorded', 'issue.created'], 'plain-text-secret-for-raw-0123');
    const notSubscribed = await hook(org, '/other', ['issue.created']);
    const disabled = await hook(org, '/off');
    await h.app.inject({ method: 'PATCH', url: `/v1/manage/webhooks/${disabled.id}`, headers: bearer(org.keys.secret), payload: { enabled: false } });
    const otherOrg = await h.org();
    await hook(otherOrg, '/foreign');

    const gen = verifying(generated.secret, '/gen');
    // A secret that is not whsec_ signs with its UTF-8 bytes: the package's raw format.
    const rawWh = new Webhook(raw.secret, { format: 'raw' });
    const d = await deploy(org, 'v1.0.0');
    const outboxRow = await h.store.db.selectFrom('outbox').selectAll().where('site_id', '=', org.site_id).where('kind', '=', 'event').executeTakeFirstOrThrow();
    expect(outboxRow.status).toBe('pending');

    const ran = await runDeliveryOnce(h.deliveryDeps());
    expect(ran.fannedOut).toBeGreaterThanOrEqual(1);
    expect(receiver.to('/other')).toHaveLength(0);
    expect(receiver.to('/off')).toHaveLength(0);
    expect(receiver.to('/foreign')).toHaveLength(0);
    expect(gen).toEqual([{ id: expect.any(String), ok: true, status: 200 }]);
    const [rawReq] = receiver.to('/raw');
    const payload = rawWh.verify(rawReq.body, rawReq.headers as Record<string, string>) as Record<string, unknown>;
    expect(payload).toMatchObject({ type: 'deploy.recorded', site_id: org.site_id, data: { id: d.id, version: 'v1.0.0' } });
    expect(Object.keys(payload).sort()).toEqual(['data', 'site_id', 'timestamp', 'type']);
    expect(new Date(String(payload.timestamp)).toISOString()).toBe(payload.timestamp);
    // The headers are the Standard Webhooks ones; the signature is v1,<base64>.
    expect(rawReq.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(Number(rawReq.headers['webhook-timestamp'])).toBe(Math.floor(h.clock.now() / 1000));
    expect(rawReq.headers['content-type']).toBe('application/json');
    // Each hook gets its own delivery (and its own webhook-id); the outbox row is done.
    expect(rawReq.headers['webhook-id']).not.toBe(gen[0].id);
    expect((await h.store.db.selectFrom('outbox').select('status').where('id', '=', outboxRow.id).executeTakeFirstOrThrow()).status).toBe('done');
    expect(await deliveriesOf(notSubscribed.id)).toHaveLength(0);
    // Running again sends nothing more.
    await runDeliveryOnce(h.deliveryDeps());
    expect(receiver.to('/gen')).toHaveLength(1);
    expect(receiver.to('/raw')).toHaveLength(1);
  });

  it.skipIf(skip)('triaging an issue over the API sends issue.updated with the issue\'s summary', async () => {
    const org = await h.org();
    const w = await hook(org, '/issues', ['issue.updated', 'issue.verified']);
    const now = h.clock.now();
    const issueId = uuidv7();
    await h.store.db.insertInto('ux_issues').values({
      id: issueId, site_id: org.site_id, fingerprint: `fp-${issueId}`, title: 'Dead clicks on the coupon field', page: '/cart', element_selector: 'input#coupon',
      element_label: null, type: 'dead_click', severity: 'medium', severity_score: 0.5, severity_manual: null, status: 'open', assigned_to: null,
      signal_count: 12, session_count: 9, user_count: 9, first_seen_at: now, last_seen_at: now, resolved_at: null, ignored_at: null,
      status_changed_at: now, created_at: now, updated_at: now, ticket_provider: null, ticket_id: null, ticket_url: null,
    }).execute();
    const patched = await h.app.inject({ method: 'PATCH', url: `/v1/manage/issues/${issueId}`, headers: bearer(org.keys.secret), payload: { status: 'triaged', note: 'seen it' } });
    expect(patched.statusCode, patched.body).toBe(200);
    const outcomes = verifying(w.secret, '/issues');
    await runDeliveryOnce(h.deliveryDeps());
    expect(outcomes).toHaveLength(1);
    const event = JSON.parse(receiver.to('/issues')[0].body);
    expect(event).toMatchObject({ type: 'issue.updated', site_id: org.site_id, data: { id: issueId, title: 'Dead clicks on the coupon field', page: '/cart', element_selector: 'input#coupon', type: 'dead_click', status: 'triaged', signal_count: 12 } });
  });

  it.skipIf(skip)('a tampered body, a wrong secret or a replayed old timestamp fails verification at the receiver', async () => {
    const org = await h.org();
    const w = await hook(org, '/tamper');
    await deploy(org, 'v2');
    await runDeliveryOnce(h.deliveryDeps());
    const [req] = receiver.to('/tamper');
    const headers = req.headers as Record<string, string>;
    const wh = new Webhook(w.secret);
    expect(() => wh.verify(req.body, headers)).not.toThrow();
    const tampered = req.body.replace('"v2"', '"v3"');
    expect(tampered).not.toBe(req.body);
    expect(() => wh.verify(tampered, headers)).toThrow(WebhookVerificationError);
    expect(() => wh.verify(`${req.body} `, headers)).toThrow(WebhookVerificationError);
    expect(() => new Webhook(`whsec_${Buffer.from('another-secret-entirely!').toString('base64')}`).verify(req.body, headers)).toThrow(WebhookVerificationError);
    expect(() => wh.verify(req.body, { ...headers, 'webhook-id': `${headers['webhook-id']}x` })).toThrow(WebhookVerificationError);
    expect(() => wh.verify(req.body, { ...headers, 'webhook-timestamp': String(Number(headers['webhook-timestamp']) - 1) })).toThrow(WebhookVerificationError);
  });

  it.skipIf(skip)('two 500s, then success: retries at +5 s and +5 min, exactly one success recorded, the same webhook-id throughout', async () => {
    // Four minutes back, so the third attempt (5 min 5 s later) is still within the
    // receiver's five-minute tolerance of real time.
    h.clock.set(Date.now() - 4 * MINUTE);
    const org = await h.org();
    const w = await hook(org, '/flaky');
    let calls = 0;
    const outcomes = verifying(w.secret, '/flaky', () => (++calls <= 2 ? 500 : 200));
    await deploy(org, 'v3');

    const t0 = h.clock.now();
    await runDeliveryOnce(h.deliveryDeps());
    let [delivery] = await deliveriesOf(w.id);
    expect(delivery).toMatchObject({ status: 'pending', attempts: 1, last_status_code: 500, last_error: 'HTTP 500', next_attempt_at: t0 + 5 * SECOND });

    // Not due yet: nothing is sent.
    h.clock.advance(4 * SECOND);
    await runDeliveryOnce(h.deliveryDeps());
    expect(receiver.to('/flaky')).toHaveLength(1);

    h.clock.advance(1 * SECOND);
    await runDeliveryOnce(h.deliveryDeps());
    [delivery] = await deliveriesOf(w.id);
    expect(delivery).toMatchObject({ status: 'pending', attempts: 2, last_status_code: 500, next_attempt_at: h.clock.now() + 5 * MINUTE });

    h.clock.advance(5 * MINUTE - 1);
    await runDeliveryOnce(h.deliveryDeps());
    expect(receiver.to('/flaky')).toHaveLength(2);
    h.clock.advance(1);
    await runDeliveryOnce(h.deliveryDeps());
    [delivery] = await deliveriesOf(w.id);
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 3, last_status_code: 200, last_error: null, next_attempt_at: null, delivered_at: h.clock.now() });

    // Every request verified; the receiver saw the same webhook-id three times.
    expect(outcomes.map((o) => o.status)).toEqual([500, 500, 200]);
    expect(outcomes.every((o) => o.ok)).toBe(true);
    expect(new Set(outcomes.map((o) => o.id))).toEqual(new Set([delivery.id]));
    const attempts = await attemptsOf(delivery.id);
    expect(attempts.map((a) => [a.attempt, a.status_code])).toEqual([[1, 500], [2, 500], [3, 200]]);
    expect(attempts.filter((a) => a.status_code === 200)).toHaveLength(1);
    for (const a of attempts) expect(a.latency_ms).toBeGreaterThanOrEqual(0);

    // The route shows the same story.
    const log = await h.app.inject({ method: 'GET', url: `/v1/manage/webhooks/${w.id}/deliveries`, headers: bearer(org.keys.secret) });
    expect(log.json().data.deliveries[0].attempt_log.map((a: { status_code: number }) => a.status_code)).toEqual([500, 500, 200]);
    // Delivered means done: later runs send nothing.
    h.clock.advance(HOUR);
    await runDeliveryOnce(h.deliveryDeps());
    expect(receiver.to('/flaky')).toHaveLength(3);
  });

  it.skipIf(skip)('after the last retry a delivery is failed: kept, listed, and re-sendable by the retry route', async () => {
    const org = await h.org();
    const w = await hook(org, '/dead');
    receiver.respond((r) => (r.url === '/dead' ? { status: 500 } : undefined));
    await deploy(org, 'v4');
    await runDeliveryOnce(h.deliveryDeps());
    for (const wait of RETRY_SCHEDULE_MS) {
      h.clock.advance(wait);
      await runDeliveryOnce(h.deliveryDeps());
    }
    const [delivery] = await deliveriesOf(w.id);
    expect(delivery).toMatchObject({ status: 'failed', attempts: MAX_ATTEMPTS, next_attempt_at: null, last_status_code: 500 });
    expect(await attemptsOf(delivery.id)).toHaveLength(MAX_ATTEMPTS);
    expect(receiver.to('/dead')).toHaveLength(MAX_ATTEMPTS);
    // Failed rows are never picked up again.
    h.clock.advance(24 * HOUR);
    await runDeliveryOnce(h.deliveryDeps());
    expect(receiver.to('/dead')).toHaveLength(MAX_ATTEMPTS);

    const listed = await h.app.inject({ method: 'GET', url: `/v1/manage/webhooks/${w.id}/deliveries?status=failed`, headers: bearer(org.keys.secret) });
    expect(listed.json().data.deliveries.map((d: { id: string }) => d.id)).toEqual([delivery.id]);

    h.clock.set(Date.now());
    receiver.reset();
    const outcomes = verifying(w.secret, '/dead');
    const retry = await h.app.inject({ method: 'POST', url: `/v1/manage/webhooks/${w.id}/deliveries/${delivery.id}/retry`, headers: bearer(org.keys.secret) });
    expect(retry.statusCode).toBe(200);
    expect(retry.json().data).toMatchObject({ id: delivery.id, status: 'delivered', last_status_code: 200 });
    expect(retry.json().data.attempt_log).toHaveLength(MAX_ATTEMPTS + 1);
    expect(outcomes).toEqual([{ id: delivery.id, ok: true, status: 200 }]);
  });

  it.skipIf(skip)('a delivery worker stopped mid-retry and replaced by a new one on the same store loses nothing', async () => {
    h.clock.set(Date.now() - 4 * MINUTE);
    const org = await h.org();
    const w = await hook(org, '/restart');
    // The first delivery's first two attempts fail; everything else succeeds.
    const seen = new Map<string, number>();
    const outcomes = verifying(w.secret, '/restart', (r) => {
      const id = String(r.headers['webhook-id']);
      const n = (seen.get(id) ?? 0) + 1;
      seen.set(id, n);
      return id === [...seen.keys()][0] && n <= 2 ? 500 : 200;
    });
    await deploy(org, 'v5');

    const first = startDeliveryWorker(h.deliveryDeps(), quietLog, 10);
    await eventually(async () => (await deliveriesOf(w.id))[0]?.attempts === 1, 'the first attempt');
    await first.stop();
    // While no worker runs, more work arrives: it waits in the outbox.
    await deploy(org, 'v6');
    expect(receiver.to('/restart')).toHaveLength(1);
    const [pending] = await deliveriesOf(w.id);
    expect(pending).toMatchObject({ status: 'pending', attempts: 1 });

    // A new worker, built from scratch on the same store (its own Secrets, as a new process).
    const second = startDeliveryWorker(h.deliveryDeps(), quietLog, 10);
    try {
      await eventually(async () => (await deliveriesOf(w.id)).length === 2 && receiver.to('/restart').length >= 2, 'the queued event');
      h.clock.advance(5 * SECOND);
      await eventually(async () => (await deliveriesOf(w.id))[0].attempts === 2, 'the second attempt');
      h.clock.advance(5 * MINUTE);
      await eventually(async () => (await deliveriesOf(w.id)).every((d) => d.status === 'delivered'), 'both delivered');
    } finally {
      await second.stop();
    }
    const rows = await deliveriesOf(w.id);
    expect(rows.map((r) => r.status)).toEqual(['delivered', 'delivered']);
    const [retried, later] = rows;
    expect((await attemptsOf(retried.id)).map((a) => a.status_code)).toEqual([500, 500, 200]);
    expect((await attemptsOf(later.id)).map((a) => a.status_code)).toEqual([200]);
    expect(outcomes.every((o) => o.ok)).toBe(true);
    expect(outcomes.filter((o) => o.id === retried.id).map((o) => o.status)).toEqual([500, 500, 200]);
    expect(outcomes.filter((o) => o.id === later.id).map((o) => o.status)).toEqual([200]);
  });

  it.skipIf(skip)('a claim whose worker died is only a lease: the row is sent once the lease runs out', async () => {
    const org = await h.org();
    const w = await hook(org, '/lease');
    const outcomes = verifying(w.secret, '/lease');
    await deploy(org, 'v7');
    const deps = h.deliveryDeps();
    // Fan out only, then claim the delivery as a worker would, and "crash" before sending.
    const { fanOutEvents } = await import('../src/delivery/worker.ts');
    await fanOutEvents(deps);
    const [row] = await deliveriesOf(w.id);
    await h.store.db.updateTable('webhook_deliveries').set({ next_attempt_at: h.clock.now() + 60 * SECOND }).where('id', '=', row.id).execute();
    h.clock.advance(30 * SECOND);
    await runDeliveryOnce(h.deliveryDeps());
    expect(outcomes).toHaveLength(0);
    h.clock.advance(30 * SECOND);
    await runDeliveryOnce(h.deliveryDeps());
    expect(outcomes).toEqual([{ id: row.id, ok: true, status: 200 }]);
    expect((await deliveriesOf(w.id))[0]).toMatchObject({ status: 'delivered', attempts: 1 });
  });

  it.skipIf(skip)('two workers running at once send each delivery exactly once', async () => {
    const org = await h.org();
    const w = await hook(org, '/twice');
    const outcomes = verifying(w.secret, '/twice');
    for (let i = 0; i < 6; i++) await deploy(org, `v8.${i}`);
    await Promise.all([runDeliveryOnce(h.deliveryDeps()), runDeliveryOnce(h.deliveryDeps())]);
    await Promise.all([runDeliveryOnce(h.deliveryDeps()), runDeliveryOnce(h.deliveryDeps())]);
    const rows = await deliveriesOf(w.id);
    expect(rows).toHaveLength(6);
    expect(rows.every((r) => r.status === 'delivered' && r.attempts === 1)).toBe(true);
    expect(outcomes).toHaveLength(6);
    expect(new Set(outcomes.map((o) => o.id)).size).toBe(6);
  });

  it.skipIf(skip)('a hook disabled or deleted after the event was queued gets nothing; the delivery is failed with the reason', async () => {
    const org = await h.org();
    const w = await hook(org, '/gone');
    await deploy(org, 'v9');
    const { fanOutEvents } = await import('../src/delivery/worker.ts');
    await fanOutEvents(h.deliveryDeps());
    await h.app.inject({ method: 'PATCH', url: `/v1/manage/webhooks/${w.id}`, headers: bearer(org.keys.secret), payload: { enabled: false } });
    await runDeliveryOnce(h.deliveryDeps());
    expect(receiver.to('/gone')).toHaveLength(0);
    expect((await deliveriesOf(w.id))[0]).toMatchObject({ status: 'failed', last_error: 'webhook disabled' });

    const w2 = await hook(org, '/gone2');
    await deploy(org, 'v10');
    await fanOutEvents(h.deliveryDeps());
    await h.app.inject({ method: 'DELETE', url: `/v1/manage/webhooks/${w2.id}`, headers: bearer(org.keys.secret) });
    await runDeliveryOnce(h.deliveryDeps());
    expect(receiver.to('/gone2')).toHaveLength(0);
    expect((await deliveriesOf(w2.id))[0]).toMatchObject({ status: 'failed', attempts: 1, last_error: 'webhook deleted' });
  });
  it.skipIf(skip)('a row waiting behind slow ones renews its lease before it runs, and one another worker claimed meanwhile is left to it', async () => {
    const org = await h.org();
    await deploy(org, 'v9.0.0');
    await deploy(org, 'v9.0.1');
    const lease = h.config.deliveryLeaseMs;
    const t0 = h.clock.now();
    const mine = (await outbox.claim(h.store.db, h.store.dialect, t0, lease, ['event'])).filter((r) => r.site_id === org.site_id);
    expect(mine).toHaveLength(2);
    // Still within the lease, nobody else has it: renewing pushes it a lease past now.
    const renewed = await outbox.renew(h.store.db, mine[0], t0 + 1000, lease);
    expect(renewed?.next_attempt_at).toBe(t0 + 1000 + lease);
    // The second row waited past its lease and another worker claimed it: ours is gone.
    const later = t0 + lease + 1;
    const theirs = (await outbox.claim(h.store.db, h.store.dialect, later, lease, ['event'])).filter((r) => r.site_id === org.site_id);
    expect(theirs.map((r) => r.id)).toEqual([mine[1].id]);
    expect(await outbox.renew(h.store.db, mine[1], later + 5, lease)).toBeNull();
    expect(await outbox.renew(h.store.db, theirs[0], later + 5, lease)).not.toBeNull();
  });
});
