// /metrics: optionally behind METRICS_TOKEN (constant-time compared, 401 in the envelope
// otherwise, counted towards the per-address lockout), and the gauges an operator alerts on
// when the API and the worker run as separate processes: the pipeline's last cycle age, the
// due backlog of both queues and the deliveries that gave up, by channel, all read from the
// store at scrape time, and the clip store's size by kind. Both dialects.
import { v7 as uuidv7 } from 'uuid';
import { expect, it } from 'vitest';
import { bearer, eachDialect, useHarness } from './helpers/harness.ts';
import { cycle, INTERVAL, MIN } from './helpers/traffic.ts';
import { cycleTimeAt } from '../src/pipeline/cycle.ts';
import { loadConfig, ConfigError } from '../src/config.ts';
import { FAILED_AUTH_PER_MIN } from '../src/domain/rate-limits.ts';

const TOKEN = 'metrics-token-0123456789abcdef';

/** The value of one sample (`name{labels} value`) in a scrape; undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

eachDialect('metrics from the store', ({ name, skip }) => {
  const h = useHarness(name, { raisedLimits: true });
  const scrape = async () => {
    const res = await h.app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode, res.body).toBe(200);
    return res.body;
  };
  const insertOutbox = (siteId: string, kind: string, status: string, nextAttemptAt: number) =>
    h.store.db.insertInto('outbox').values({ id: uuidv7(), site_id: siteId, kind, payload: '{}', status, attempts: 0, next_attempt_at: nextAttemptAt, created_at: h.clock.now(), processed_at: null }).execute();
  const insertDelivery = (siteId: string, status: string, nextAttemptAt: number | null) =>
    h.store.db.insertInto('webhook_deliveries').values({
      id: uuidv7(), webhook_id: uuidv7(), site_id: siteId, event_type: 'alert.fired', event_id: uuidv7(), payload: '{}', status, attempts: 0,
      next_attempt_at: nextAttemptAt, last_status_code: null, last_error: null, created_at: h.clock.now(), updated_at: h.clock.now(), delivered_at: null,
    }).execute();

  it.skipIf(skip)('the last cycle age: NaN without a site, since the site was created until its first cycle, then since the latest cycle', async () => {
    expect(sample(await scrape(), 'mallard_pipeline_last_cycle_age_seconds')).toBeNaN();
    const org = await h.org('Metrics cycle');
    h.clock.advance(10 * MIN);
    expect(sample(await scrape(), 'mallard_pipeline_last_cycle_age_seconds')).toBe(600);

    const at = cycleTimeAt(h.clock.now(), INTERVAL);
    await cycle(h, org.site_id, at);
    h.clock.advance(3 * INTERVAL);
    expect(sample(await scrape(), 'mallard_pipeline_last_cycle_age_seconds')).toBe((h.clock.now() - at) / 1000);
    // A second live site whose latest cycle is older does not age the gauge: the latest of any site counts.
    const other = await h.org('Metrics cycle 2');
    await cycle(h, other.site_id, at - INTERVAL);
    expect(sample(await scrape(), 'mallard_pipeline_last_cycle_age_seconds')).toBe((h.clock.now() - at) / 1000);
  });

  it.skipIf(skip)('the due backlog per queue and the failed deliveries per channel', async () => {
    const org = await h.org('Metrics queues');
    const before = await scrape();
    const value = (text: string, series: string) => sample(text, series) ?? Number.NaN;
    const now = h.clock.now();
    // Due: two notifications, one event, one webhook delivery. Not due: a future retry, a leased row, done and delivered rows.
    await insertOutbox(org.site_id, 'notify.slack', 'pending', now - 1000);
    await insertOutbox(org.site_id, 'notify.email', 'pending', now);
    await insertOutbox(org.site_id, 'event', 'pending', now - 5000);
    await insertOutbox(org.site_id, 'notify.slack', 'pending', now + 60_000);
    await insertOutbox(org.site_id, 'notify.slack', 'done', now - 1000);
    await insertDelivery(org.site_id, 'pending', now - 1000);
    await insertDelivery(org.site_id, 'pending', now + 1000);
    await insertDelivery(org.site_id, 'delivered', null);
    // Gave up: one email, two PagerDuty, three webhook deliveries.
    await insertOutbox(org.site_id, 'notify.email', 'failed', now);
    for (let i = 0; i < 2; i++) await insertOutbox(org.site_id, 'notify.pagerduty', 'failed', now);
    for (let i = 0; i < 3; i++) await insertDelivery(org.site_id, 'failed', null);

    const after = await scrape();
    const delta = (series: string) => value(after, series) - value(before, series);
    expect(delta('mallard_outbox_due{queue="outbox"}')).toBe(3);
    expect(delta('mallard_outbox_due{queue="webhook_deliveries"}')).toBe(1);
    expect(delta('mallard_delivery_failed{channel="email"}')).toBe(1);
    expect(delta('mallard_delivery_failed{channel="pagerduty"}')).toBe(2);
    expect(delta('mallard_delivery_failed{channel="webhook"}')).toBe(3);
    expect(delta('mallard_delivery_failed{channel="slack"}')).toBe(0);

    // Time passes: the future retries fall due.
    h.clock.advance(2 * MIN);
    const later = await scrape();
    expect(value(later, 'mallard_outbox_due{queue="outbox"}') - value(after, 'mallard_outbox_due{queue="outbox"}')).toBe(1);
    expect(value(later, 'mallard_outbox_due{queue="webhook_deliveries"}') - value(after, 'mallard_outbox_due{queue="webhook_deliveries"}')).toBe(1);
  });

  it.skipIf(skip)('the clip store: rows and compressed bytes by kind', async () => {
    const org = await h.org('Metrics clips');
    const value = (text: string, series: string) => sample(text, series) ?? Number.NaN;
    const before = await scrape();
    const clip = (kind: string, bytes: number) => h.store.db.insertInto('clips').values({
      id: uuidv7(), site_id: org.site_id, client_id: uuidv7().replaceAll('-', ''), kind, sid: 'a'.repeat(32), visitor_id: null, environment: 'production',
      page: '/checkout', device: 'desktop', signal_ids: '[]', signal_types: '[]', started_at: h.clock.now(), ended_at: h.clock.now(), width: 1280, height: 800,
      event_count: 2, bytes, encoding: 'br', body: Buffer.alloc(bytes), created_at: h.clock.now(),
    }).execute();
    await clip('clip', 100);
    await clip('clip', 250);
    await clip('snapshot', 40);
    const after = await scrape();
    const delta = (series: string) => value(after, series) - value(before, series);
    expect(delta('mallard_clip_store_bytes{kind="clip"}')).toBe(350);
    expect(delta('mallard_clip_store_rows{kind="clip"}')).toBe(2);
    expect(delta('mallard_clip_store_bytes{kind="snapshot"}')).toBe(40);
    expect(delta('mallard_clip_store_rows{kind="snapshot"}')).toBe(1);
  });
});

eachDialect('metrics behind METRICS_TOKEN', ({ name, skip }) => {
  const h = useHarness(name, { config: { metricsToken: TOKEN } });

  it.skipIf(skip)('needs the bearer token: 401 missing_auth without one, invalid_key for another, 200 with it', async () => {
    const none = await h.app.inject({ method: 'GET', url: '/metrics' });
    expect(none.statusCode).toBe(401);
    expect(none.json()).toMatchObject({ data: null, error: { code: 'missing_auth', status: 401 } });
    for (const wrong of [`${TOKEN}x`, TOKEN.slice(0, -1), 'short', TOKEN.toUpperCase()]) {
      const res = await h.app.inject({ method: 'GET', url: '/metrics', headers: bearer(wrong) });
      expect(res.statusCode, wrong).toBe(401);
      expect(res.json()).toMatchObject({ data: null, error: { code: 'invalid_key', status: 401 } });
      expect(res.body).not.toContain('mallard_');
    }
    const ok = await h.app.inject({ method: 'GET', url: '/metrics', headers: bearer(TOKEN) });
    expect(ok.statusCode).toBe(200);
    expect(ok.body).toContain('mallard_pipeline_last_cycle_age_seconds');
    // Health stays public.
    expect((await h.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });

  it.skipIf(skip)('wrong tokens count towards the per-address lockout', async () => {
    h.clock.advance(MIN);
    const headers = bearer('guess-guess-guess-guess');
    let last = 0;
    for (let i = 0; i <= FAILED_AUTH_PER_MIN; i++) last = (await h.app.inject({ method: 'GET', url: '/metrics', headers, remoteAddress: '10.9.8.7' })).statusCode;
    expect(last).toBe(429);
    // The right token from that address waits too; from another it is served.
    expect((await h.app.inject({ method: 'GET', url: '/metrics', headers: bearer(TOKEN), remoteAddress: '10.9.8.7' })).statusCode).toBe(429);
    expect((await h.app.inject({ method: 'GET', url: '/metrics', headers: bearer(TOKEN), remoteAddress: '10.9.8.6' })).statusCode).toBe(200);
  });
});

it('METRICS_TOKEN: unset or empty leaves /metrics public; a short or spaced one stops the start', () => {
  const base = { NODE_ENV: 'test', MALLARD_SECRET: 'x'.repeat(32), DATABASE_URL: 'sqlite::memory:' };
  expect(loadConfig(base).metricsToken).toBeNull();
  expect(loadConfig({ ...base, METRICS_TOKEN: '' }).metricsToken).toBeNull();
  expect(loadConfig({ ...base, METRICS_TOKEN: TOKEN }).metricsToken).toBe(TOKEN);
  expect(() => loadConfig({ ...base, METRICS_TOKEN: 'short' })).toThrow(ConfigError);
  expect(() => loadConfig({ ...base, METRICS_TOKEN: 'has a space in it ok' })).toThrow(/METRICS_TOKEN/);
});
