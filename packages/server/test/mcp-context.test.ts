// GET /v1/query/mcp/context on seeded data: every section present and within its cap, with
// values worked out by hand from DOMAIN.md.
//
// Seed: 40 sessions in one interval, each viewing pages /p01../p14. On page i, sessions 0-2
// rage-click button.b<i> once each (3 x 25 = 75) and session 0 dead-clicks a.more<i> (i - 1)
// times (12 each). Page i: 40 active users, 3 affected (7.5 %, below 10 %: x1.0), so
// raw = (75 + 12 (i - 1)) / 40 = 1.875 + 0.3 (i - 1) and score = 100 x (1 - e^(-raw / 10)):
//   (e^-x to 5 decimals, the score to 3 before rounding to 1)
//   /p01 raw 1.875: 100 x (1 - 0.82903) = 17.097 -> 17.1    /p08 raw 3.975: 100 x (1 - 0.67200) = 32.800 -> 32.8
//   /p02 raw 2.175: 100 x (1 - 0.80453) = 19.547 -> 19.5    /p09 raw 4.275: 100 x (1 - 0.65214) = 34.786 -> 34.8
//   /p03 raw 2.475: 100 x (1 - 0.78075) = 21.925 -> 21.9    /p10 raw 4.575: 100 x (1 - 0.63286) = 36.714 -> 36.7
//   /p04 raw 2.775: 100 x (1 - 0.75768) = 24.232 -> 24.2    /p11 raw 4.875: 100 x (1 - 0.61416) = 38.584 -> 38.6
//   /p05 raw 3.075: 100 x (1 - 0.73528) = 26.472 -> 26.5    /p12 raw 5.175: 100 x (1 - 0.59601) = 40.399 -> 40.4
//   /p06 raw 3.375: 100 x (1 - 0.71355) = 28.645 -> 28.6    /p13 raw 5.475: 100 x (1 - 0.57839) = 42.161 -> 42.2
//   /p07 raw 3.675: 100 x (1 - 0.69246) = 30.754 -> 30.8    /p14 raw 5.775: 100 x (1 - 0.56130) = 43.870 -> 43.9
// The dominant signal is dead_click from /p08 on (12 x 7 = 84 > 75), rage_click below. No page
// is flustered (all <= 60). The site: 40 visitors, 3 affected; overall = the mean of the 14
// scores (40 users each) = 438.0 / 14 = 31.29 -> 31.3, watching by the score.
// Each page's rage clicks (3 fires, 3 sessions) make one issue; the dead clicks (1 session) none.
// The budget rule's target is 15: every page's first score is over it (the lowest is 17.1), and
// its alert is critical at twice the target (score >= 30: /p07../p14), else warning (score < 61).
import { beforeAll, expect, it } from 'vitest';
import { eachDialect, useHarness } from './helpers/harness.ts';
import { api, cycle, hexId, ingest, MIN, type Ev } from './helpers/alert-traffic.ts';

const C = Date.UTC(2026, 10, 1, 10, 0); // the cycle time, a day before the harness clock
const PAGES = Array.from({ length: 14 }, (_, k) => `/p${String(k + 1).padStart(2, '0')}`);
/** The page scores worked out above, /p01 first. */
const SCORES = [17.1, 19.5, 21.9, 24.2, 26.5, 28.6, 30.8, 32.8, 34.8, 36.7, 38.6, 40.4, 42.2, 43.9];
const score = (i: number) => SCORES[i - 1];
const SESSIONS = 40;

function seed() {
  return Array.from({ length: SESSIONS }, (_, s) => {
    const events: Ev[] = [];
    PAGES.forEach((page, k) => {
      const i = k + 1;
      const t = C - 14 * MIN + k * 50_000 + s * 1000;
      events.push({ type: 'pageview', ts: t, page });
      if (s < 3) events.push({ type: 'signal', ts: t + 100, page, signal_type: 'rage_click', element: `button.b${i}`, label: 'Go', confidence: 1 });
      if (s === 0) for (let d = 0; d < i - 1; d++) events.push({ type: 'signal', ts: t + 200 + d, page, signal_type: 'dead_click', element: `a.more${i}`, label: 'More', confidence: 1 });
    });
    if (s === 9) events.push({ type: 'track', ts: C - 30_000, page: '/p01', name: 'purchase_completed', props: { amount_cents: 5000 } });
    return { sid: hexId(), vid: hexId(), events };
  });
}

eachDialect('GET /v1/query/mcp/context', (dialect) => {
  const h = useHarness(dialect.name, { raisedLimits: true });
  let a: ReturnType<typeof api>;
  let ctx: any;
  let raw: string;
  const issueOf: Record<string, string> = {};
  const alertOf: Record<string, string> = {};

  beforeAll(async () => {
    const org = await h.org('Ctx');
    a = api(h, org.keys.secret);
    h.clock.set(C);
    await a.createRule({ name: 'Budget 15', trigger_type: 'budget', threshold: 15 });
    await ingest(h, org.keys.secret, seed());
    // Six deploys, 50 to 25 minutes before the cycle; recorded before any score exists (before = 0).
    for (let k = 0; k < 6; k++) {
      const res = await a.call('POST', '/v1/manage/deploys', { version: `1.0.${k}`, deployed_at: new Date(C - 50 * MIN + k * 5 * MIN).toISOString() });
      expect(res.status, res.raw).toBe(201);
    }
    await cycle(h, org.site_id, C);

    h.clock.set(C + MIN);
    for (const issue of (await a.get('/v1/query/issues?limit=50')).issues) issueOf[issue.page] = issue.id;
    expect(Object.keys(issueOf).sort()).toEqual(PAGES);
    for (const alert of (await a.alerts()).alerts) alertOf[alert.page] = alert.id;
    expect(Object.keys(alertOf).sort()).toEqual(PAGES); // every page's first score is over 15

    // Severities by hand (they stick): /p01 critical, /p04 high, /p14 low, the rest medium.
    for (const page of PAGES) {
      const severity = page === '/p01' ? 'critical' : page === '/p04' ? 'high' : page === '/p14' ? 'low' : 'medium';
      expect((await a.call('PATCH', `/v1/manage/issues/${issueOf[page]}`, { severity })).status).toBe(200);
    }
    // /p02's issue ignored and /p03's resolved: 14 - 2 = 12 open issues.
    expect((await a.call('PATCH', `/v1/manage/issues/${issueOf['/p02']}`, { status: 'ignored' })).status).toBe(200);
    expect((await a.call('PATCH', `/v1/manage/issues/${issueOf['/p03']}`, { status: 'resolved' })).status).toBe(200);
    // /p01's alert resolved, /p14's acknowledged: 13 active alerts.
    expect((await a.call('PATCH', `/v1/manage/alerts/${alertOf['/p01']}`, { status: 'resolved' })).status).toBe(200);
    expect((await a.call('PATCH', `/v1/manage/alerts/${alertOf['/p14']}`, { status: 'acknowledged' })).status).toBe(200);

    const res = await h.app.inject({ method: 'GET', url: '/v1/query/mcp/context', headers: { authorization: `Bearer ${org.keys.mcp}` } });
    expect(res.statusCode, res.body).toBe(200);
    raw = res.body;
    ctx = res.json().data;
  });

  it('states the caps and stays small', () => {
    expect(ctx.caps).toEqual({ pages: 10, issues: 10, deploys: 5, alerts: 10, recommendations: 5 });
    expect(raw.length).toBeLessThan(20_000);
    expect(ctx.as_of).toBe(new Date(C).toISOString());
  });

  it('overall state and the one-sentence summary with the true totals', () => {
    // The score alone reads watching (20 < 31.3 <= 40), but the active alerts (/p02../p14: /p01's
    // is resolved) hold 8 critical ones (/p07../p14, /p14's acknowledged), which make the site at
    // least alert; the other 5 (/p02../p06) are warnings. No page is flustered, so none is named.
    // The site's window is the last interval [C - 15 min, C): 40 visitors, 3 affected.
    const headline = 'alert: 8 critical alerts firing; 5 other alerts firing; overall score 31.3 of 100';
    expect(ctx.overall).toEqual({
      score: 31.3, trend: 'stable', duck_state: 'alert', duck_reason: 'alert', headline, active_users: SESSIONS, affected_users: 3,
      window_from: new Date(C - 15 * MIN).toISOString(), window_to: new Date(C).toISOString(),
    });
    // Issues needing attention: 14 - /p02 (ignored) - /p03 (resolved) = 12; active alerts 13.
    expect(ctx.state).toBe(`Ctx site: ${headline}; trend stable; worst page /p14 at 43.9, mostly dead_click; 12 issues needing attention and 13 active alerts.`);
    expect(ctx.state.match(/\.(\s|$)/g)).toHaveLength(1); // one sentence
  });

  it('top pages: the 10 highest scores, with trends and dominant signals', () => {
    expect(ctx.top_pages).toEqual([14, 13, 12, 11, 10, 9, 8, 7, 6, 5].map((i) => ({
      page: PAGES[i - 1], score: score(i), trend: 'stable', dominant_signal: i >= 8 ? 'dead_click' : 'rage_click', active_users: SESSIONS,
    })));
    expect(ctx.top_pages[0].score).toBe(43.9);
    expect(ctx.top_pages[9].score).toBe(26.5);
  });

  it('open issues: by priority (here the severity decides: the same users, type and no estimate), capped at 10 of 12, ignored and resolved left out', () => {
    expect(ctx.open_issue_count).toBe(12);
    const priorities = ctx.open_issues.map((i: any) => i.priority);
    expect(priorities).toEqual([...priorities].sort((a, b) => b - a));
    expect(ctx.open_issues).toHaveLength(10);
    expect(ctx.open_issues[0]).toMatchObject({ id: issueOf['/p01'], severity: 'critical', status: 'open', type: 'rage_click', page: '/p01' });
    expect(ctx.open_issues[1]).toMatchObject({ id: issueOf['/p04'], severity: 'high' });
    expect(ctx.open_issues.slice(2).every((i: any) => i.severity === 'medium')).toBe(true);
    const ids = ctx.open_issues.map((i: any) => i.id);
    for (const page of ['/p02', '/p03', '/p14']) expect(ids).not.toContain(issueOf[page]); // ignored, resolved, and the low one past the cap
    for (const issue of ctx.open_issues) expect(issue).toMatchObject({ session_count: 3, title: expect.any(String), last_seen_at: expect.any(String) });
  });

  it('recommendations: the top 5 issues, each with a recommendation', () => {
    expect(ctx.recommendations).toHaveLength(5);
    expect(ctx.recommendations.map((r: any) => r.issue_id)).toEqual(ctx.open_issues.slice(0, 5).map((i: any) => i.id));
    for (const r of ctx.recommendations) {
      expect(r.title).toEqual(expect.any(String));
      expect(r.recommendation.length).toBeGreaterThan(10);
    }
  });

  it('recent deploys: the 5 latest of 6, newest first, with before, after and delta', () => {
    // before: 0 (no score when recorded); after: the span from the deploy to the cycle holds
    // the whole seed (40 users and 3 affected on each page), so the same 14 scores: 31.3; delta 31.3 - 0 = 31.3.
    expect(ctx.recent_deploys.map((d: any) => d.version)).toEqual(['1.0.5', '1.0.4', '1.0.3', '1.0.2', '1.0.1']);
    for (const d of ctx.recent_deploys) expect(d).toMatchObject({ environment: 'production', confusion_before: 0, confusion_after: 31.3, delta: 31.3 });
    expect(ctx.recent_deploys[0].deployed_at).toBe(new Date(C - 25 * MIN).toISOString());
  });

  it('active alerts: fired, acknowledged or investigating, capped at 10 of 13', () => {
    expect(ctx.active_alert_count).toBe(13);
    expect(ctx.active_alerts).toHaveLength(10);
    const active = new Set(PAGES.filter((p) => p !== '/p01').map((p) => alertOf[p]));
    for (const alert of ctx.active_alerts) {
      expect(active.has(alert.id)).toBe(true);
      expect(['fired', 'acknowledged', 'investigating']).toContain(alert.status);
      expect(alert).toMatchObject({ trigger_type: 'budget', fired_at: new Date(C).toISOString() });
      // Severity: condition = score; >= 30 is twice the threshold 15: critical; below, warning (every score < 61).
      const page = Number(alert.page.slice(2));
      expect(alert.severity).toBe(score(page) >= 30 ? 'critical' : 'warning');
    }
  });

  it('revenue at risk when conversions are tracked (too few sessions for an estimate: 0)', () => {
    expect(ctx.revenue).toEqual({ currency: 'USD', monthly_at_risk: 0, monthly_at_risk_cents: 0 });
  });

  it('an empty site: every section empty, no revenue, and still one sentence', async () => {
    const org = await h.org('Empty');
    const data = await api(h, org.keys.secret).get('/v1/query/mcp/context');
    expect(data).toMatchObject({
      site_id: org.site_id, as_of: null, top_pages: [], open_issues: [], open_issue_count: 0, recent_deploys: [],
      active_alerts: [], active_alert_count: 0, recommendations: [], revenue: null,
      overall: { score: 0, trend: 'stable', duck_state: 'calm', duck_reason: 'score', window_from: null, window_to: null },
    });
    // No scored page: the headline says so (docs/scoring.md: "no data yet", never "everything
    // normal"); the sentence goes on after it, so the headline's own full stop is not kept.
    const headline = 'No data yet: add the Mallard SDK to the site; its pages show here after their first visits';
    expect(data.overall.headline).toBe(headline);
    expect(data.state).toBe('Empty site: No data yet: add the Mallard SDK to the site; its pages show here after their first visits; trend stable; no page scored yet; 0 issues needing attention and 0 active alerts.');
  });

  it('needs a credential and stays within the tenant', async () => {
    const none = await h.app.inject({ method: 'GET', url: '/v1/query/mcp/context' });
    expect(none.statusCode).toBe(401);
    const other = await h.org('Other');
    const res = await a.call('GET', `/v1/query/mcp/context?site_id=${other.site_id}`);
    expect([403, 404]).toContain(res.status);
  });
});
