// "What should we fix first?" has one answer on every face (issue 26): /query/issues by
// default, /query/recommendations, /query/mcp/context, and over MCP list_issues,
// get_recommendations, get_site_context, the triage_open_issues prompt and the resource list,
// on both dialects. The fixture makes severity and priority disagree, and counts a regressed
// issue among those needing attention.
//
// Traffic through the real ingest route, one cycle (the site tracks conversions):
//   A  rage clicks on 'Pay now' (/checkout): 30 users, 6 of 30 sessions convert against 22 of 40
//      calm ones: 52,500 cents a month at risk (as in revenue.test.ts). Severity 69.7, high.
//      Priority: 17.3967 (30 users) + 22.5 (high) + 9.375 (weight 25) + 13.6048 (525 a month) = 62.9.
//   B  dead clicks on 'Help' (/help): 2 users; severity set to critical by hand. No estimate (2
//      sessions). Priority: 5.5656 (2 users) + 30 (critical) + 4.5 (weight 12) + 0 = 40.1.
//   C  form restarts on /signup: 3 users, regressed (the engine's verdict, written here).
//   D  U-turns on /about: 2 users, resolved by hand: not needing attention.
// Severity order: B (critical) before A (high). Priority order: A, B, C. Needing attention: 3.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { GetPromptResult } from '@modelcontextprotocol/sdk/types.js';
import { eachDialect, useHarness, type Org } from './helpers/harness.ts';
import { HOUR, MIN, cycle, freshStart, ok, sendVisits, type Visit } from './helpers/traffic.ts';
import { callOk, connect, listen, type Connected } from './helpers/mcp-kit.ts';

const PAY = { type: 'rage_click', element: 'button.pay', label: 'Pay now' };
const HELP = { type: 'dead_click', element: 'a.help', label: 'Help' };
const RESTART = { type: 'form_restart', element: 'form.signup' };
const UTURN = { type: 'u_turn_navigation', element: 'a.back' };

function traffic(at: number): Visit[] {
  const out: Visit[] = [];
  let n = 0;
  const add = (page: string, signals: Visit['signals'], tracks?: Visit['tracks']) => { n++; out.push({ n, page, at: at + n * 2000, signals, tracks }); };
  for (let i = 0; i < 30; i++) add('/checkout', [PAY], i < 6 ? [{ name: 'checkout_completed', amount_cents: i < 3 ? 4000 : 6000 }] : undefined);
  for (let i = 0; i < 40; i++) add('/checkout', [], i < 22 ? [{ name: 'checkout_completed', amount_cents: i < 11 ? 3000 : 7000 }] : undefined);
  add('/help', [HELP, HELP]);
  add('/help', [HELP]);
  for (let i = 0; i < 3; i++) add('/signup', [RESTART]);
  add('/about', [UTURN, UTURN]);
  add('/about', [UTURN]);
  return out;
}

eachDialect('the same top issue on every face', (dialect) => {
  const h = useHarness(dialect.name, { raisedLimits: true });
  let org: Org;
  let mcp: Connected;
  const id: Record<'A' | 'B' | 'C' | 'D', string> = { A: '', B: '', C: '', D: '' };

  beforeAll(async () => {
    const start = await freshStart(h);
    org = start.org;
    const S = start.start;
    h.clock.set(S + HOUR + 10 * MIN);
    await sendVisits(h, org, start.prefix, traffic(S + HOUR));
    h.clock.set(S + HOUR + 15 * MIN);
    await cycle(h, org.site_id, S + HOUR + 15 * MIN);

    const rows = await h.store.db.selectFrom('ux_issues').select(['id', 'type']).where('site_id', '=', org.site_id).execute();
    const of = (type: string) => rows.find((r) => r.type === type)!.id;
    Object.assign(id, { A: of('rage_click'), B: of('dead_click'), C: of('form_restart'), D: of('u_turn_navigation') });
    expect(rows).toHaveLength(4);
    await ok(h, org.keys.secret, 'PATCH', `/v1/manage/issues/${id.B}`, { severity: 'critical' });
    await ok(h, org.keys.secret, 'PATCH', `/v1/manage/issues/${id.D}`, { status: 'resolved' });
    // Regressed is the verification engine's word (issues-verify.test.ts); here it is only a status to count.
    await h.store.db.updateTable('ux_issues').set({ status: 'regressed' }).where('id', '=', id.C).execute();

    mcp = await connect('http', await listen(h), org.keys.mcp);
  }, 60_000);

  afterAll(async () => { await mcp?.close(); });

  const get = (url: string) => ok(h, org.keys.mcp, 'GET', url);

  it('the fixture: severity puts B first, priority puts A first', async () => {
    const bySeverity = await get('/v1/query/issues?sort=severity&attention=true');
    expect(bySeverity.issues.map((i: { id: string }) => i.id)[0]).toBe(id.B);
    const issues = (await get('/v1/query/issues')).issues;
    expect(issues.find((i: { id: string }) => i.id === id.A)).toMatchObject({
      severity: 'high', users_7d: 30, revenue_at_risk_cents: 52_500, priority: 62.9,
      priority_reason: 'high; 30 users in 7 days; $525/month at risk; rage click (weight 25)',
    });
    expect(issues.find((i: { id: string }) => i.id === id.B)).toMatchObject({
      severity: 'critical', severity_source: 'manual', users_7d: 2, revenue_at_risk_cents: null, priority: 40.1,
      priority_reason: 'critical; 2 users in 7 days; revenue at risk not estimated (too few sessions); dead click (weight 12)',
    });
  });

  it('the query API: /query/issues, /query/recommendations and /query/mcp/context agree', async () => {
    const attention = [id.A, id.B, id.C];
    const issues = await get('/v1/query/issues');
    expect(issues.issues.map((i: { id: string }) => i.id)).toEqual([...attention, id.D]);
    expect((await get('/v1/query/issues?attention=true')).total).toBe(3);
    // status=open keeps its meaning: the regressed one is not "open".
    expect((await get('/v1/query/issues?status=open')).issues.map((i: { id: string }) => i.id)).toEqual([id.A, id.B]);

    const recs = await get('/v1/query/recommendations');
    expect(recs.recommendations.map((r: { issue_id: string }) => r.issue_id)).toEqual(attention);
    expect(recs.recommendations[0]).toMatchObject({ priority: 62.9, monthly_revenue_at_risk_cents: 52_500 });

    const context = await get('/v1/query/mcp/context');
    expect(context.open_issues.map((i: { id: string }) => i.id)).toEqual(attention);
    expect(context.recommendations.map((r: { issue_id: string }) => r.issue_id)).toEqual(attention);
    expect(context.open_issue_count).toBe(3);
    expect(context.open_issues[0]).toMatchObject({ priority: 62.9, priority_reason: expect.stringContaining('$525/month') });
  });

  it('MCP: list_issues, get_recommendations and get_site_context agree, in data and in words', async () => {
    const list = await callOk(mcp.client, 'list_issues');
    expect(list.data.issues.map((i: { id: string }) => i.id)).toEqual([id.A, id.B, id.C, id.D]);
    expect(list.text.split('\n')[1]).toContain(`id ${id.A}`);
    expect(list.text).toContain('priority 62.9 of 100: high; 30 users in 7 days; $525/month at risk');
    const filtered = await callOk(mcp.client, 'list_issues', { attention: true, sort: 'priority' });
    expect(filtered.data.total).toBe(3);

    const recs = await callOk(mcp.client, 'get_recommendations');
    expect(recs.data.recommendations.map((r: { issue_id: string }) => r.issue_id)).toEqual([id.A, id.B, id.C]);
    // The id, then its dashboard link (MALLARD_PUBLIC_URL/app/#/issues/<id>).
    expect(recs.text.split('\n')[1]).toContain(`[issue ${id.A} (http://127.0.0.1:8787/app/#/issues/${id.A})]`);

    const context = await callOk(mcp.client, 'get_site_context');
    expect(context.data.open_issues[0].id).toBe(id.A);
    expect(context.data.open_issue_count).toBe(3);
    const lines = context.text.split('\n');
    const heading = lines.indexOf('Issues needing attention, by priority (what to fix first; 0-100):');
    expect(heading).toBeGreaterThan(0);
    expect(lines[heading + 1]).toContain(`id ${id.A}`);
    expect(lines[heading + 1]).toContain('62.9');
  });

  it('MCP: the triage prompt and the resource list start from the same issue', async () => {
    const prompt = await mcp.client.getPrompt({ name: 'triage_open_issues', arguments: {} }) as GetPromptResult;
    const text = (prompt.messages[0].content as { text: string }).text;
    const first = text.split('\n').find((l) => l.startsWith('- '))!;
    expect(first).toContain(`(id ${id.A})`);
    expect(text).toContain('(3 of 3;');
    const resources = (await mcp.client.listResources()).resources.filter((r) => r.uri.startsWith('mallard://issues/'));
    expect(resources.map((r) => r.uri)).toEqual([id.A, id.B, id.C].map((i) => `mallard://issues/${i}`));
  });
});
