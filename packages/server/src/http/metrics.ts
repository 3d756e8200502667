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
  return {
    contentType: registry.contentType,
    countIngest(outcome: 'stored' | 'duplicate' | 'rejected' | 'bot', n: number) {
      if (n > 0) ingestEvents.inc({ outcome }, n);
    },
    observe(method: string, route: string, status: number, elapsedMs: number) {
      requests.inc({ method, route, status: String(status) });
      duration.observe({ method, route }, elapsedMs / 1000);
    },
    render: () => registry.metrics(),
  };
}
