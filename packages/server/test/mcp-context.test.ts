// GET /v1/query/mcp/context on seeded data: every section present and within its cap, with
// values worked out by hand from DOMAIN.md.
//
// Seed: 10 sessions in one interval, each viewing pages /p01../p14. On page i, sessions 0-2
// rage-click button.b<i> once each (3 x 25 = 75) and session 0 dead-clicks a.more<i> (i - 1)
// times (12 each). Score of page i = (75 + 12 (i - 1)) / 10 (3 frustrated users: x1):
// /p01 7.5, /p02 8.7, ... /p05 12.3, ... /p14 23.1. The dominant signal is dead_click from
// /p08 on (12 x 7 = 84 > 75), rage_click below. The site: 10 visitors, overall = the mean of the
// 14 scores (10 users each) = (7.5 + 23.1) / 2 = 15.3, calm; 3 affected users.
// Each page's rage clicks (3 fires, 3 sessions) make one issue; the dead clicks (1 session) none.
import { beforeAll, expect, it } from 'vitest';
import { eachDialect, useHarness } from './helpers/harness.ts';
import { api, cycle, hexId, ingest, MIN, type Ev } from './helpers/alert-traffic.ts';

const C = Date.UTC(2026, 10, 1, 10, 0); // the cycle time, a day before the harness clock
const PAGES = Array.from({ length: 14 }, (_, k) => `/p${String(k + 1).padStart(2, '0')}`);
const score = (i: number) => Math.round(75 + 12 * (i - 1)) / 10;

function seed() {
  return Array.from({ length: 10 }, (_, s) => {
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
    await a.createRule({ name: 'Budget 5', trigger_type: 'budget', threshold: 5 });
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
    expect(Object.keys(alertOf).sort()).toEqual(PAGES); // every page's first score is over 5

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
    expect(ctx.overall).toEqual({ score: 15.3, trend: 'stable', duck_state: 'calm', active_users: 10, affected_users: 3 });
    expect(ctx.state).toBe('Ctx site: everything normal (overall score 15.3, trend stable); worst page /p14 at 23.1, mostly dead_click; 12 open issues and 13 active alerts.');
    expect(ctx.state.match(/\.(\s|$)/g)).toHaveLength(1); // one sentence
  });

  it('top pages: the 10 highest scores, with trends and dominant signals', () => {
    expect(ctx.top_pages).toEqual([14, 13, 12, 11, 10, 9, 8, 7, 6, 5].map((i) => ({
      page: PAGES[i - 1], score: score(i), trend: 'stable', dominant_signal: i >= 8 ? 'dead_click' : 'rage_click', active_users: 10,
    })));
    expect(ctx.top_pages[0].score).toBe(23.1);
    expect(ctx.top_pages[9].score).toBe(12.3);
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
    // the whole seed, so the same 14 scores: 15.3; delta 15.3.
    expect(ctx.recent_deploys.map((d: any) => d.version)).toEqual(['1.0.5', '1.0.4', '1.0.3', '1.0.2', '1.0.1']);
    for (const d of ctx.recent_deploys) expect(d).toMatchObject({ environment: 'production', confusion_before: 0, confusion_after: 15.3, delta: 15.3 });
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
      // Severity: condition = score; >= 10 is twice the threshold 5: critical; below, warning.
      const page = Number(alert.page.slice(2));
      expect(alert.severity).toBe(score(page) >= 10 ? 'critical' : 'warning');
    }
  });

  it('revenue at risk when conversions are tracked (too few sessions for an estimate: 0)', () => {
    expect(ctx.revenue).toEqual({ currency: 'USD', monthly_at_risk: 0 });
  });

  it('an empty site: every section empty, no revenue, and still one sentence', async () => {
    const org = await h.org('Empty');
    const data = await api(h, org.keys.secret).get('/v1/query/mcp/context');
    expect(data).toMatchObject({
      site_id: org.site_id, as_of: null, top_pages: [], open_issues: [], open_issue_count: 0, recent_deploys: [],
      active_alerts: [], active_alert_count: 0, recommendations: [], revenue: null,
      overall: { score: 0, trend: 'stable', duck_state: 'calm' },
    });
    expect(data.state).toBe('Empty site: everything normal (overall score 0, trend stable); no page scored yet; 0 open issues and 0 active alerts.');
  });

  it('needs a credential and stays within the tenant', async () => {
    const none = await h.app.inject({ method: 'GET', url: '/v1/query/mcp/context' });
    expect(none.statusCode).toBe(401);
    const other = await h.org('Other');
    const res = await a.call('GET', `/v1/query/mcp/context?site_id=${other.site_id}`);
    expect([403, 404]).toContain(res.status);
  });
});
