// Prometheus metrics at /metrics, one registry per app so tests can build many apps.
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

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
  return {
    contentType: registry.contentType,
    countIngest(outcome: 'stored' | 'duplicate' | 'rejected' | 'bot', n: number) {
      if (n > 0) ingestEvents.inc({ outcome }, n);
    },
    observe(method: string, route: string, status: number, elapsedMs: number) {
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
    render: () => registry.metrics(),
  };
}
