// Prometheus metrics at /metrics, one registry per app so tests can build many apps.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { RateLimiter } from '../store/rate-limit.ts';
import type { StoreFaultEpisodes } from '../store/store-faults.ts';
import type { Kysely } from 'kysely';
import type { Database } from '../store/tables.ts';
import { BACKLOG_COUNT_CAP, DELIVERY_CHANNELS, dueBacklog, failedByChannel } from '../delivery/backlog.ts';
import { lastCycleAgeSeconds } from '../pipeline/last-cycle.ts';
import { CLIP_KINDS_STORED, clipStoreTotals } from '../store/clip-totals.ts';

export type Metrics = ReturnType<typeof createMetrics>;

export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'mallard_http_requests_total',
    help: 'HTTP requests by method, route and status',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'mallard_http_request_duration_seconds',
    help: 'HTTP request duration by method and route',
    labelNames: ['method', 'route'],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  const ingestEvents = new Counter({
    name: 'mallard_ingest_events_total',
    help: 'Ingested events by outcome: stored, duplicate, rejected, or bot (dropped with its batch)',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const byLabels = new Map<string, { count: Counter.Internal; time: Histogram.Internal<'method' | 'route'> }>();
  // Plain running totals beside the series, for the terminal's heartbeat (logs/heartbeat.ts).
  const totals = { requests: 0, events: 0 };
  return {
    contentType: registry.contentType,
    countIngest(outcome: 'stored' | 'duplicate' | 'rejected' | 'bot', n: number) {
      if (n > 0) ingestEvents.inc({ outcome }, n);
      if (outcome === 'stored') totals.events += n;
    },
    /** Requests answered and events stored since the app was built. */
    totals: () => ({ ...totals }),
    observe(method: string, route: string, status: number, elapsedMs: number) {
      totals.requests++;
      // Every request counts here: the labelled series are looked up once per label set.
      const key = `${method} ${status} ${route}`;
      let series = byLabels.get(key);
      if (!series) {
        series = { count: requests.labels(method, route, String(status)), time: duration.labels(method, route) };
        // Routes are patterns, so the label sets are few; a bound all the same.
        if (byLabels.size >= 10_000) byLabels.clear();
        byLabels.set(key, series);
      }
      series.count.inc();
      series.time.observe(elapsedMs / 1000);
    },
    /**
     * Reports where the limiter counts, read at each scrape. A limiter without a status (memory
     * only, no REDIS_URL) adds nothing. buildApp calls it.
     */
    trackRateLimiter(limiter: RateLimiter) {
      if (!limiter.status) return;
      const status = () => limiter.status!();
      new Gauge({
        name: 'mallard_rate_limit_redis_up',
        help: '1 while rate limits are counted in Redis, 0 while Redis is unreachable and this process counts its own',
        registers: [registry],
        collect() { this.set(status().redisUp ? 1 : 0); },
      });
      new Counter({
        name: 'mallard_rate_limit_fallback_checks_total',
        help: 'Rate-limit checks answered by this process\'s own counters because Redis was unreachable',
        registers: [registry],
        collect() { this.reset(); this.inc(status().fallbackChecks); },
      });
      new Counter({
        name: 'mallard_rate_limit_redis_outages_total',
        help: 'Times Redis became unreachable to the rate limiter',
        registers: [registry],
        collect() { this.reset(); this.inc(status().outages); },
      });
    },
    /** Store outages and full disks (store/store-faults.ts), read at each scrape; buildApp calls it. */
    trackStoreFaults(faults: StoreFaultEpisodes) {
      new Counter({
        name: 'mallard_store_faults_total',
        help: 'Store operations that failed because the database was unreachable (unavailable) or out of space (storage_full)',
        labelNames: ['fault'],
        registers: [registry],
        collect() {
          this.reset();
          for (const [fault, count] of Object.entries(faults.counts)) this.inc({ fault }, count);
        },
      });
      new Gauge({
        name: 'mallard_store_fault_active',
        help: '1 while a store fault episode is under way (its first failure seen, no success since), by fault',
        labelNames: ['fault'],
        registers: [registry],
        collect() {
          for (const fault of Object.keys(faults.counts)) this.set({ fault }, faults.active() === fault ? 1 : 0);
        },
      });
    },
    /**
     * The pipeline and the delivery queues as the store holds them, read at each scrape (so an
     * API process reports a separate worker): five indexed reads (pipeline/last-cycle.ts,
     * delivery/backlog.ts). A read that fails (the store is down) reports NaN rather than fail
     * the scrape, whose store-fault series matter most then. buildApp calls it.
     */
    trackWork(db: Kysely<Database>, now: () => number) {
      new Gauge({
        name: 'mallard_pipeline_last_cycle_age_seconds',
        help: 'Seconds since the latest pipeline cycle any process recorded in the store (with live sites but no cycle yet: since the oldest was created); NaN without a live site',
        registers: [registry],
        async collect() { this.set(await lastCycleAgeSeconds(db, now()).then((age) => age ?? NaN, () => NaN)); },
      });
      new Gauge({
        name: 'mallard_outbox_due',
        help: `Jobs due now and not yet sent, by queue: outbox (events and notifications) and webhook_deliveries; counted up to ${BACKLOG_COUNT_CAP}`,
        labelNames: ['queue'],
        registers: [registry],
        async collect() {
          const due = await dueBacklog(db, now()).catch(() => ({ outbox: NaN, webhook_deliveries: NaN }));
          for (const [queue, count] of Object.entries(due)) this.set({ queue }, count);
        },
      });
      new Gauge({
        name: 'mallard_delivery_failed',
        help: 'Deliveries that gave up after their last retry and are still in the store, by channel (webhook, slack, pagerduty, email); a retry from the API takes one back',
        labelNames: ['channel'],
        registers: [registry],
        async collect() {
          const failed = await failedByChannel(db).catch(() => Object.fromEntries(DELIVERY_CHANNELS.map((channel) => [channel, NaN])));
          for (const [channel, count] of Object.entries(failed)) this.set({ channel }, count);
        },
      });
      const clipTotals = () => clipStoreTotals(db).catch(() => Object.fromEntries(CLIP_KINDS_STORED.map((kind) => [kind, { rows: NaN, bytes: NaN }])));
      new Gauge({
        name: 'mallard_clip_store_bytes',
        help: 'Bytes the friction clips and page snapshots take in the store (compressed as stored), by kind (clip, snapshot)',
        labelNames: ['kind'],
        registers: [registry],
        async collect() { for (const [kind, t] of Object.entries(await clipTotals())) this.set({ kind }, t.bytes); },
      });
      new Gauge({
        name: 'mallard_clip_store_rows',
        help: 'Friction clips and page snapshots stored, by kind (clip, snapshot)',
        labelNames: ['kind'],
        registers: [registry],
        async collect() { for (const [kind, t] of Object.entries(await clipTotals())) this.set({ kind }, t.rows); },
      });
    },
    render: () => registry.metrics(),
  };
}
