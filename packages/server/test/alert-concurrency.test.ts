// Two workers evaluating the same rule at once fire one alert, never two: the cooldown is
// claimed atomically in the store. Two separate processes on the store (as two workers, or
// `mallard serve` and `mallard worker`, are: on SQLite only separate processes hold separate
// write locks) run alertStep, then whole cycles, at the same moment against the same site and
// cycle time.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { AlertStepResult } from '../src/pipeline/alert-step.ts';
import { runCycle, type CycleResult } from '../src/pipeline/cycle.ts';
import { eachDialect, useHarness } from './helpers/harness.ts';
import { atOnce, startPipelineProcess, type PipelineProcess } from './helpers/pipeline-process.ts';
import { api, ingest, intervalTraffic, INTERVAL, MIN } from './helpers/alert-traffic.ts';

const C1 = Date.UTC(2026, 9, 30, 10, 15); // a cycle time three days before the harness clock

eachDialect('concurrent alert evaluation', (dialect) => {
  const h = useHarness(dialect.name, { raisedLimits: true });
  let workers: PipelineProcess[] = [];
  let siteId: string;
  let a: ReturnType<typeof api>;

  beforeAll(async () => {
    workers = await Promise.all([startPipelineProcess(h.storeUrl), startPipelineProcess(h.storeUrl)]);
    const org = await h.org('Race');
    siteId = org.site_id;
    a = api(h, org.keys.secret);
    h.clock.set(C1);
    // /checkout: 10 visitors, 8 rage clicks from one: 200 / 10 = 20 per user, 1 of 10 affected (x 1.5)
    // = raw 30, score 100 x (1 - e^-3) = 95.
    await ingest(h, org.keys.secret, intervalTraffic(C1 - INTERVAL, [{ page: '/checkout', signals: [{ type: 'rage_click', element: 'button.pay', count: 8 }] }]));
    // Score the page with no rule yet.
    expect((await runCycle(h.store.db, siteId, C1, { intervalMs: INTERVAL, clock: h.clock })).status).toBe('done');
  });
  afterAll(async () => { await Promise.all(workers.map((w) => w.close())); });

  it('two alertStep calls at once in two processes fire exactly one alert (eight rounds)', async () => {
    for (let round = 0; round < 8; round++) {
      const rule = await a.createRule({ name: `Race ${round}`, trigger_type: 'budget', threshold: 10, page_pattern: '/checkout' });
      const [r1, r2] = await atOnce<AlertStepResult>(workers, () => ({ op: 'alertStep', siteId, cycleAt: C1 }));
      expect(r1.fired + r2.fired, `round ${round}`).toBe(1);
      const alerts = (await a.alerts()).alerts.filter((x) => x.rule_id === rule.id);
      expect(alerts, `round ${round}`).toHaveLength(1);
      expect(alerts[0]).toMatchObject({ page: '/checkout', score_after: 95, condition_value: 95 });
      const detail = await a.get(`/v1/query/alerts/${alerts[0].id}`);
      expect(detail.timeline.filter((t: any) => t.kind === 'fired')).toHaveLength(1);
      // Out of the way for the next round.
      expect((await a.call('PATCH', `/v1/manage/alert-rules/${rule.id}`, { enabled: false })).status).toBe(200);
    }
    expect((await a.alerts()).total).toBe(8);
  });

  it('two whole cycles at once in two processes (one may find the site busy) fire exactly one alert', async () => {
    const rule = await a.createRule({ name: 'Race cycle', trigger_type: 'new_page', threshold: 10, cooldown_minutes: 1 });
    const C2 = C1 + INTERVAL;
    h.clock.set(C2);
    const [r1, r2] = await atOnce<CycleResult>(workers, (i) => ({ op: 'runCycle', siteId, cycleAt: C2, intervalMs: INTERVAL, now: C2, holder: `worker-${i + 1}` }));
    const fired = [r1, r2].reduce((sum, r) => sum + (r.status === 'done' ? r.alerts.fired : 0), 0);
    expect(fired).toBe(1);
    expect((await a.alerts()).alerts.filter((x) => x.rule_id === rule.id)).toHaveLength(1);
    h.clock.set(C2 + MIN);
  });
});
