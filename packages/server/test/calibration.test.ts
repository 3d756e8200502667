// The calibration table of DOMAIN.md section 3, held on simulated traffic through the real path:
// batches posted to /v1/ingest, one pipeline cycle, the scores read back from /v1/query/scores.
// Each scenario is a page of its own with 100 visitors in one 15-minute interval, so its window is
// that interval and its score is the page's alone. Confidences are what the SDK sends for a plain
// burst or click (1.0).
//   3 % dead-click once:            3 x 12 / 100 = 0.36, x 1 (3 %)   -> 3.5   calm
//   10 % rage-click:                10 x 25 / 100 = 2.5, x 1.5 (10 %) -> 31.3  watching
//   20 % hit an error:              20 x 20 / 100 = 4,   x 1.5 (20 %) -> 45.1  alert
//   40 % rage- and dead-click a broken button: 40 x (25 + 12) / 100 = 14.8, x 2 (40 %) -> 94.8 critical
import { beforeAll, expect, it } from 'vitest';
import { bearer, eachDialect, useHarness } from './helpers/harness.ts';
import { runCycle } from '../src/pipeline/cycle.ts';

const MIN = 60_000;
const INTERVAL = 15 * MIN;
const T = Date.UTC(2026, 10, 2, 10, 15); // a cycle time
const VISITORS = 100;

interface Scenario { page: string; share: number; signals: { signal_type: string; element: string; label: string }[]; state: string; score: number }
const SCENARIOS: Scenario[] = [
  { page: '/docs', share: 0.03, signals: [{ signal_type: 'dead_click', element: 'span.badge', label: 'New' }], state: 'calm', score: 3.5 },
  { page: '/search', share: 0.1, signals: [{ signal_type: 'rage_click', element: 'button.filter', label: 'Filter' }], state: 'watching', score: 31.3 },
  { page: '/account', share: 0.2, signals: [{ signal_type: 'error_encounter', element: 'form.profile', label: 'Save' }], state: 'alert', score: 45.1 },
  {
    page: '/checkout', share: 0.4, state: 'critical', score: 94.8,
    signals: [{ signal_type: 'rage_click', element: 'button.pay', label: 'Pay now' }, { signal_type: 'dead_click', element: 'button.pay', label: 'Pay now' }],
  },
];

const hex = (scenario: number, visitor: number, salt: number) => `${salt}${scenario.toString(16)}${visitor.toString(16).padStart(4, '0')}`.padEnd(32, 'c');

eachDialect('score calibration (DOMAIN.md section 3)', (dialect) => {
  const h = useHarness(dialect.name);
  let key: string;
  let pages: { page: string; score: number; duck_state: string; active_users: number; affected_users: number }[];

  beforeAll(async () => {
    const org = await h.org('Calibration');
    key = org.keys.secret;
    h.clock.set(T + MIN);
    for (const [s, scenario] of SCENARIOS.entries()) {
      for (let v = 0; v < VISITORS; v++) {
        const t = T - INTERVAL + 60_000 + v * 1_000;
        const events: Record<string, unknown>[] = [{ type: 'pageview', ts: t, page: scenario.page }];
        if (v < Math.round(scenario.share * VISITORS)) {
          for (const [i, signal] of scenario.signals.entries()) events.push({ type: 'signal', ts: t + 500 + i * 100, page: scenario.page, confidence: 1, ...signal });
        }
        const res = await h.app.inject({
          method: 'POST', url: '/v1/ingest', headers: bearer(key),
          payload: { sid: hex(s, v, 1), vid: hex(s, v, 2), url: `https://shop.example${scenario.page}`, ts: t + 1_000, import: true, events },
        });
        expect(res.statusCode, res.body).toBe(202);
      }
    }
    expect((await runCycle(h.store.db, org.site_id, T, { intervalMs: INTERVAL, clock: h.clock })).status).toBe('done');
    const res = await h.app.inject({ method: 'GET', url: '/v1/query/scores', headers: bearer(key) });
    expect(res.statusCode, res.body).toBe(200);
    pages = res.json().data.site.pages;
  }, 120_000);

  it.each(SCENARIOS)('$page: $share of users -> $state ($score)', (scenario) => {
    const row = pages.find((p) => p.page === scenario.page);
    expect(row).toMatchObject({ active_users: VISITORS, affected_users: Math.round(scenario.share * VISITORS), score: scenario.score, duck_state: scenario.state });
  });
});
