// A webhook receiver that is down for most of a day, then back: first it answers 503, then it
// stops listening (connections refused), then it answers 200 again. Events are queued before
// and during the outage and after it; the delivery worker runs at every moment the documented
// schedule (docs/webhooks.md) says an attempt is due, and a millisecond before, with the
// injected clock standing in for the hours. Every event must arrive exactly once, signed, with
// its attempts at the documented times in order; nothing is failed before its eighth attempt,
// and a receiver that never comes back fails each delivery exactly at the eighth. Both dialects.
import { beforeAll, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { runDeliveryOnce } from '../src/delivery/worker.ts';
import { bearer, eachDialect, useHarness, type Org } from './helpers/harness.ts';
import { deliveryOptions, deliverySuiteHooks, installLoopbackGuard, Receiver } from './helpers/delivery-kit.ts';

// Every socket of this file may only reach loopback.
installLoopbackGuard();

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

// The waits of docs/webhooks.md, written out rather than imported, so that a schedule changed
// in the code and not in the documentation fails here.
const DOCUMENTED_WAITS = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR];
const LAST_ATTEMPT = DOCUMENTED_WAITS.length + 1;

/** When each of the eight attempts of a delivery first tried at `firstAt` is due. */
function documentedAttemptTimes(firstAt: number): number[] {
  const times = [firstAt];
  for (const wait of DOCUMENTED_WAITS) times.push(times[times.length - 1] + wait);
  return times;
}

// The outage, from the start of the test: 503 until 8 h, refused connections until 20 h, then up.
const REFUSING_FROM = 8 * HOUR;
const BACK_AT = 20 * HOUR;
/** When each event is recorded: before the outage is noticed, early in it, late in it, and after it. */
const EVENT_OFFSETS = [0, 2 * SECOND, 10 * MINUTE, 3 * HOUR, 15 * HOUR, 19 * HOUR, 21 * HOUR];

eachDialect('a webhook receiver outage', ({ name, skip }) => {
  let receiver: Receiver;
  beforeAll(async () => { receiver = await new Receiver().start(); });
  const h = useHarness(name, deliveryOptions());
  deliverySuiteHooks(h, () => receiver);

  async function hook(org: Org, path: string) {
    const res = await h.app.inject({ method: 'POST', url: '/v1/manage/webhooks', headers: bearer(org.keys.secret), payload: { url: receiver.url(path), events: ['deploy.recorded'] } });
    expect(res.statusCode, res.body).toBe(201);
    return { id: res.json().data.id as string, secret: res.json().data.secret as string };
  }

  const deliveriesOf = (webhookId: string) => h.store.db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', webhookId).orderBy('created_at').orderBy('id').execute();
  const attemptsOf = (deliveryId: string) => h.store.db.selectFrom('delivery_attempts').selectAll().where('delivery_id', '=', deliveryId).orderBy('attempt').execute();
  const attemptCount = async () => Number((await h.store.db.selectFrom('delivery_attempts').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

  it.skipIf(skip)('every event queued during a long outage is delivered exactly once when the receiver is back, at the documented attempt times', async () => {
    const org = await h.org();
    const outage = await hook(org, '/outage');
    // A second hook of the same site whose receiver never recovers: it fails, but only at the eighth attempt.
    const gone = await hook(org, '/gone');
    const t0 = h.clock.now();

    let answering = 'unavailable' as 'unavailable' | 'refusing' | 'up';
    receiver.respond((r) => (r.url === '/gone' || answering === 'unavailable' ? { status: 503, body: '{"error":"maintenance"}' } : undefined));

    // Every moment something happens or an attempt may be due, in order.
    const moments = new Set<number>([t0 + REFUSING_FROM, t0 + BACK_AT]);
    for (const offset of EVENT_OFFSETS) for (const at of documentedAttemptTimes(t0 + offset)) moments.add(at);
    const versions: string[] = [];
    for (const at of [...moments].sort((a, b) => a - b)) {
      // A millisecond early, nothing is due: no attempt is made.
      h.clock.set(at - 1);
      const before = await attemptCount();
      await runDeliveryOnce(h.deliveryDeps());
      expect(await attemptCount(), `an attempt before its time, at t0 + ${at - 1 - t0} ms`).toBe(before);

      h.clock.set(at);
      if (at === t0 + REFUSING_FROM) { answering = 'refusing'; await receiver.close(); }
      if (at === t0 + BACK_AT) { answering = 'up'; await receiver.reopen(); }
      if (EVENT_OFFSETS.includes(at - t0)) {
        const version = `v${versions.length + 1}`;
        const res = await h.app.inject({ method: 'POST', url: '/v1/manage/deploys', headers: bearer(org.keys.secret), payload: { version } });
        expect(res.statusCode, res.body).toBe(201);
        versions.push(version);
      }
      await runDeliveryOnce(h.deliveryDeps());
      // Nothing of the recovering hook is ever given up on.
      expect((await deliveriesOf(outage.id)).filter((d) => d.status === 'failed')).toEqual([]);
    }
    // Long after, nothing more is sent.
    const sentBefore = receiver.requests.length;
    h.clock.set(t0 + 4 * 24 * HOUR);
    await runDeliveryOnce(h.deliveryDeps());
    expect(receiver.requests.length).toBe(sentBefore);

    // Each attempt's expected outcome from the receiver's state at that moment.
    const expectedOutcome = (at: number) => (at - t0 < REFUSING_FROM ? 503 : at - t0 < BACK_AT ? null : 200);
    const recovered = await deliveriesOf(outage.id);
    expect(recovered).toHaveLength(EVENT_OFFSETS.length);
    for (const [i, delivery] of recovered.entries()) {
      const due = documentedAttemptTimes(t0 + EVENT_OFFSETS[i]);
      const succeededAt = due.findIndex((at) => at >= t0 + BACK_AT);
      const expectedTimes = due.slice(0, succeededAt + 1);
      const attempts = await attemptsOf(delivery.id);
      // The attempts, in order, at exactly the documented times, failing until the receiver is back.
      expect(attempts.map((a) => [a.attempt, a.created_at, a.status_code])).toEqual(expectedTimes.map((at, n) => [n + 1, at, expectedOutcome(at)]));
      // Refused; or, right after the receiver went away, a kept-alive connection it dropped.
      for (const a of attempts.filter((x) => x.status_code === null)) expect(a.error).toMatch(/ECONNREFUSED|ECONNRESET|EPIPE|socket hang up/);
      expect(delivery).toMatchObject({ status: 'delivered', attempts: expectedTimes.length, delivered_at: expectedTimes[expectedTimes.length - 1], next_attempt_at: null });
      expect(JSON.parse(delivery.payload).data.version).toBe(versions[i]);
    }
    // The first event's eighth and last attempt is the one that got through.
    expect(recovered[0].attempts).toBe(LAST_ATTEMPT);

    // The receiver's side: every request carried a valid signature for its own time, each
    // delivery kept its webhook-id, and each event was accepted exactly once.
    const signer = new Webhook(outage.secret);
    const seen = receiver.to('/outage');
    for (const r of seen) {
      const id = String(r.headers['webhook-id']);
      const seconds = Number(r.headers['webhook-timestamp']);
      expect(r.headers['webhook-signature']).toBe(signer.sign(id, new Date(seconds * SECOND), r.body));
    }
    const accepted = seen.filter((r) => expectedOutcome(Number(r.headers['webhook-timestamp']) * SECOND) === 200);
    expect(accepted.map((r) => JSON.parse(r.body).data.version).sort()).toEqual([...versions].sort());
    expect(accepted.map((r) => r.headers['webhook-id']).sort()).toEqual(recovered.map((d) => d.id).sort());
    for (const delivery of recovered) {
      const itsRequests = seen.filter((r) => r.headers['webhook-id'] === delivery.id).map((r) => Number(r.headers['webhook-timestamp']) * SECOND);
      const reachedReceiver = (await attemptsOf(delivery.id)).filter((a) => a.status_code !== null).map((a) => Math.floor(a.created_at / SECOND) * SECOND);
      expect(itsRequests).toEqual(reachedReceiver);
    }

    // The receiver that never came back: every delivery failed at its eighth attempt, at the documented times.
    const failed = await deliveriesOf(gone.id);
    expect(failed).toHaveLength(EVENT_OFFSETS.length);
    for (const [i, delivery] of failed.entries()) {
      const due = documentedAttemptTimes(t0 + EVENT_OFFSETS[i]);
      const attempts = await attemptsOf(delivery.id);
      expect(attempts.map((a) => [a.attempt, a.created_at, a.status_code])).toEqual(due.map((at, n) => [n + 1, at, expectedOutcome(at) === null ? null : 503]));
      expect(delivery).toMatchObject({ status: 'failed', attempts: LAST_ATTEMPT, next_attempt_at: null, delivered_at: null });
    }

    // The delivery log over the API tells the same story.
    const listed = await h.app.inject({ method: 'GET', url: `/v1/manage/webhooks/${outage.id}/deliveries?status=delivered&limit=100`, headers: bearer(org.keys.secret) });
    expect(listed.statusCode, listed.body).toBe(200);
    const first = listed.json().data.deliveries.find((d: { id: string }) => d.id === recovered[0].id);
    expect(first.attempt_log.map((a: { attempt: number; status_code: number | null }) => [a.attempt, a.status_code]))
      .toEqual(documentedAttemptTimes(t0).map((at, n) => [n + 1, expectedOutcome(at)]));
  });
});
