// The outbox's job catalog: enqueue takes the change's transaction (a rolled-back change
// queues nothing), and a stored payload is checked against its kind's schema when the worker
// reads it back: a malformed one fails at once, with the reason in the attempt log, and is
// never sent; a kind this worker does not know waits for one that does. Both dialects.
import type { Transaction } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, expect, expectTypeOf, it } from 'vitest';
import { Secrets } from '../src/auth/secrets.ts';
import { ManualClock } from '../src/clock.ts';
import { runDeliveryOnce } from '../src/delivery/worker.ts';
import type { DeliveryDeps } from '../src/delivery/handlers.ts';
import { enqueue, eventJob, JOBS, readPayload } from '../src/events/jobs.ts';
import type { Database } from '../src/store/tables.ts';
import { createTestStore, eachDialect, T0, testConfig, type TestStore } from './helpers/harness.ts';

it('every kind has a payload schema; send kinds a retry policy and a timeout', () => {
  for (const [kind, spec] of Object.entries(JOBS)) {
    expect(spec.payload, kind).toBeTypeOf('object');
    if (!('local' in spec)) {
      expect(spec.retryAfterMs.length, kind).toBe(7);
      expect(spec.timeoutMs, kind).toBeGreaterThan(0);
    }
  }
  expectTypeOf(enqueue).parameter(0).toEqualTypeOf<Transaction<Database>>();
});

it('readPayload returns the payload of its kind, or what is wrong with it', () => {
  const event = { type: 'deploy.recorded', timestamp: '2026-11-02T12:00:00.000Z', site_id: 's', data: { id: 'd' } };
  expect(readPayload('event', JSON.stringify(event))).toEqual({ ok: true, payload: event });
  expect(readPayload('event', JSON.stringify({ ...event, type: 'deploy.exploded' }))).toMatchObject({ ok: false, error: expect.stringMatching(/^invalid payload: \/type /) });
  expect(readPayload('notify.email', '{"alert_id":5}')).toMatchObject({ ok: false, error: expect.stringMatching(/^invalid payload: /) });
  expect(readPayload('notify.email', 'not json')).toEqual({ ok: false, error: 'invalid payload: not JSON' });
  // The test event is a delivery, never an outbox event.
  expect(readPayload('webhook.delivery', JSON.stringify({ ...event, type: 'webhook.test' })).ok).toBe(true);
  expect(readPayload('event', JSON.stringify({ ...event, type: 'webhook.test' })).ok).toBe(false);
});

eachDialect('the outbox', ({ name }) => {
  let t: TestStore;
  let deps: DeliveryDeps;
  const clock = new ManualClock(T0);
  const siteId = uuidv7();

  beforeAll(async () => {
    t = await createTestStore(name);
    const config = testConfig();
    const noNetwork = async () => { throw new Error('no sends in this suite'); };
    deps = { store: t.store, clock, config, secrets: new Secrets(config.secret), policy: { allowPrivate: false, requireHttps: false, resolve: noNetwork } };
  });
  afterAll(async () => { await t?.drop(); });

  const row = (id: string) => t.store.db.selectFrom('outbox').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  async function stored(kind: string, payload: string) {
    const id = uuidv7();
    await t.store.db.insertInto('outbox').values({ id, site_id: siteId, kind, payload, status: 'pending', attempts: 0, next_attempt_at: clock.now(), created_at: clock.now(), processed_at: null }).execute();
    return id;
  }

  it('a job enqueued in a transaction that rolls back is not queued; one that commits is', async () => {
    const job = eventJob(siteId, 'deploy.recorded', { id: 'd1' }, clock.now());
    await expect(t.store.db.transaction().execute(async (trx) => {
      await enqueue(trx, job, clock.now());
      throw new Error('the change failed');
    })).rejects.toThrow('the change failed');
    expect(await t.store.db.selectFrom('outbox').select('id').where('site_id', '=', siteId).execute()).toHaveLength(0);
    const id = await t.store.db.transaction().execute((trx) => enqueue(trx, job, clock.now()));
    expect(await row(id)).toMatchObject({ kind: 'event', status: 'pending', attempts: 0, next_attempt_at: clock.now() });
    expect(JSON.parse((await row(id)).payload)).toEqual({ type: 'deploy.recorded', timestamp: new Date(clock.now()).toISOString(), site_id: siteId, data: { id: 'd1' } });
    await runDeliveryOnce(deps);
    expect(await row(id)).toMatchObject({ status: 'done', processed_at: clock.now() });
  });

  it('a malformed payload fails at once with the reason logged, is not sent and not retried', async () => {
    const notification = await stored('notify.slack', JSON.stringify({ alert_id: 5, event: 'fired', slack_channel: null, recipients: null }));
    const event = await stored('event', JSON.stringify({ type: 'deploy.exploded', timestamp: 'x', site_id: siteId, data: {} }));
    const garbled = await stored('notify.email', '{');
    await runDeliveryOnce(deps);
    for (const id of [notification, event, garbled]) {
      expect(await row(id)).toMatchObject({ status: 'failed', attempts: 1, processed_at: clock.now() });
      const attempts = await t.store.db.selectFrom('delivery_attempts').selectAll().where('delivery_id', '=', id).execute();
      expect(attempts).toHaveLength(1);
      expect(attempts[0]).toMatchObject({ attempt: 1, status_code: null, error: expect.stringMatching(/^invalid payload: /) });
    }
    expect((await t.store.db.selectFrom('delivery_attempts').select('error').where('delivery_id', '=', notification).executeTakeFirstOrThrow()).error).toMatch(/^invalid payload: \/alert_id /);
    // Nothing was fanned out from the bad event.
    expect(await t.store.db.selectFrom('webhook_deliveries').select('id').where('event_id', '=', event).execute()).toHaveLength(0);
    clock.advance(24 * 60 * 60_000);
    await runDeliveryOnce(deps);
    expect(await t.store.db.selectFrom('delivery_attempts').select('id').where('delivery_id', 'in', [notification, event, garbled]).execute()).toHaveLength(3);
  });

  it('a kind this worker does not know stays pending for a worker that does', async () => {
    const id = await stored('notify.carrier_pigeon', '{}');
    await runDeliveryOnce(deps);
    expect(await row(id)).toMatchObject({ status: 'pending', attempts: 0 });
  });
});
