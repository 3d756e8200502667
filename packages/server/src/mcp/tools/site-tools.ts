// Read tools about the site and its pages: who am I, the one-call context, scores, one page,
// trends, two pages compared, elements, what to fix first and the revenue at risk.
import { siteDirectoryOp } from '../../features/sites/operations.ts';
import { whoamiWithSitesOp } from '../../features/whoami/operations.ts';
import { siteContextOp } from '../../features/mcp-context/operations.ts';
import { compareOp, elementsOp, pageDetailOp, siteScoresOp, trendsOp } from '../../features/scores/operations.ts';
import { recommendationsOp, revenueOp } from '../../features/revenue/operations.ts';
import { defineTool } from '../tool-kit.ts';
import { bullets, countsLine, lines, plural, signed } from '../text.ts';
import { formatMoney } from '../../domain/money.ts';

type Row = Record<string, unknown>;
const money = (cents: number | null | undefined, currency: string) => (cents === null || cents === undefined ? 'unknown' : formatMoney(cents, currency));

const SITES_IN_TEXT = 20;
const siteLine = (s: { id: string; name: string; url: string }) => `${s.name} (${s.url}): site_id ${s.id}`;

export const listSitesTool = defineTool({
  name: 'list_sites',
  operation: siteDirectoryOp,
  title: 'Sites',
  description: 'The sites this credential can read, with the ids an org-level credential passes as site_id.',
  summarize: (d) => d.total === 0 ? 'No sites: the org has none yet.' : lines(
    `${plural(d.total, 'site')} this credential can read (pass site_id to the tools):`,
    bullets(d.sites, siteLine, 'sites', d.total, SITES_IN_TEXT),
  ),
});

export const whoamiTool = defineTool({
  name: 'whoami',
  operation: whoamiWithSitesOp,
  title: 'Who am I',
  description: 'Who this connection is: org, own site (null if org-level), credential type, scopes, role, readable sites.',
  summarize: (d) => lines(
    `Org ${d.org.name} (${d.org.id}); ${d.site ? `site ${d.site.name} (${d.site.id}, ${d.site.url})` : 'no site of its own: pass site_id to each tool'}.`,
    `Credential: ${d.key_type}${'role' in d && d.role ? `, role ${d.role}` : ''}; scopes ${d.scopes.join(', ') || 'none'}.`,
    `Sites it can read: ${d.sites.length === 0 ? 'none' : d.sites.slice(0, SITES_IN_TEXT).map(siteLine).join('; ')}${d.sites.length > SITES_IN_TEXT ? `; and ${d.sites.length - SITES_IN_TEXT} more (list_sites)` : ''}.`,
  ),
});

export const siteContextTool = defineTool({
  name: 'get_site_context',
  operation: siteContextOp,
  title: 'Site context',
  description: 'Call this first: the site\'s state, worst pages, issues by priority, deploys, active alerts (mcp_channel: sent to you), what to fix first, revenue at risk.',
  links: [
    { at: 'open_issues[]', kind: 'issue' }, { at: 'recent_deploys[]', kind: 'deploy' }, { at: 'active_alerts[]', kind: 'alert' },
    { at: 'recommendations[]', kind: 'issue', id: 'issue_id' },
  ],
  summarize: (d) => {
    const forYou = d.active_alerts.filter((a) => a.mcp_channel);
    return lines(
      d.state,
      d.top_pages.length > 0 && 'Worst pages:',
      bullets(d.top_pages, (p) => `${p.page}: ${p.score} (${p.trend}${p.dominant_signal ? `, mostly ${p.dominant_signal}` : ''})`, 'pages'),
      d.open_issues.length > 0 && 'Issues needing attention, by priority (what to fix first; 0-100):',
      bullets(d.open_issues, (i) => `${i.priority} [${i.severity}] ${i.title} (${i.status}; ${i.priority_reason}; id ${i.id})`, 'issues needing attention', d.open_issue_count),
      d.recommendations.length > 0 && 'What to fix first:',
      bullets(d.recommendations, (r) => `${r.title}: ${r.recommendation} (issue ${r.issue_id})`, 'recommendations'),
      d.recent_deploys.length > 0 && 'Recent deploys (site score before -> after; positive delta is worse):',
      bullets(d.recent_deploys, (x) => `${x.version} (${x.environment}, ${x.deployed_at}): ${x.confusion_before} -> ${x.confusion_after ?? 'pending'}${x.delta === null ? '' : ` (${signed(x.delta)})`}; id ${x.id}`, 'deploys'),
      d.active_alert_count === 0 ? 'No active alerts.' : `Active alerts (${d.active_alert_count}):`,
      bullets(d.active_alerts, (a) => `[${a.severity}] ${a.message} (${a.status}, fired ${a.fired_at}${a.mcp_channel ? ', sent to you through the mcp channel' : ''}; id ${a.id})`, 'active alerts', d.active_alert_count),
      forYou.length > 0 && `Alerts sent to you (mcp channel): ${forYou.map((a) => `${a.message} (id ${a.id})`).join('; ')}`,
      d.revenue ? `Revenue at risk: ${money(d.revenue.monthly_at_risk_cents, d.revenue.currency)} a month.` : 'Revenue at risk: unknown (no conversion event tracked yet).',
    );
  },
});

export const scoresTool = defineTool({
  name: 'get_scores',
  operation: siteScoresOp,
  title: 'Site scores',
  description: 'Which pages confuse users most: overall score (0 calm to 100 broken) and trend, every scored page worst first.',
  summarize: (d) => lines(
    d.headline,
    `Overall ${d.site.overall_score} of 100, trend ${d.site.overall_trend}; ${d.site.total_active_users} active users, ${d.site.total_affected_users} affected${d.site.window_from ? ` (${d.site.window_from} to ${d.site.window_to})` : ''}${d.as_of ? `; as of ${d.as_of}` : '; not scored yet'}.`,
    bullets(d.site.pages as Row[], (p) => `${p.page}: ${p.score} (${p.trend}${p.dominant_signal ? `, mostly ${p.dominant_signal}` : ''})`, 'pages'),
  ),
});

export const pageTool = defineTool({
  name: 'get_page',
  operation: pageDetailOp,
  title: 'One page in detail',
  description: 'Why a page confuses users: score by signal, history, worst elements, its issues, alerts and recent deploys.',
  links: [{ at: 'issues[]', kind: 'issue' }, { at: 'active_alerts[]', kind: 'alert' }, { at: 'recent_deploys[]', kind: 'deploy' }],
  pageFields: ['page'],
  summarize: (d) => {
    const s = d.score as Row | null;
    return lines(
      // The users come with their window, as every count of users does (DESIGN, "Scores and states").
      s ? `${d.page}: score ${s.score} (${s.duck_state}), trend ${s.trend}, ${s.active_users} active users, ${s.affected_users} affected (${s.window_start} to ${s.window_end})${s.dominant_signal ? `; mostly ${s.dominant_signal}` : ''}.`
        : `${d.page}: seen but not scored yet (fewer than 3 active users).`,
      d.elements.length > 0 && 'Elements with the most friction:',
      bullets(d.elements, (e) => `${e.element_selector}${e.label ? ` '${e.label}'` : ''}: ${e.signal_count} signals (${countsLine(e.signals)}), ${plural(e.affected_users, 'user')}`, 'elements', d.elements.length, 5),
      d.issues.length > 0 && 'Open issues:',
      bullets(d.issues as Row[], (i) => `[${i.severity}] ${i.title} (id ${i.id})`, 'issues', d.issues.length, 5),
      `${plural(d.active_alerts.length, 'active alert')}, ${plural(d.history.length, 'history row')} in 7 days.`,
    );
  },
});

export const trendsTool = defineTool({
  name: 'get_trends',
  operation: trendsOp,
  title: 'Score trends',
  description: 'Better or worse over time: score history of a page (or the site), newest first, with annotations.',
  argumentNotes: { page: 'omit it for the whole site', days: null },
  pageFields: ['page'],
  summarize: (d) => {
    const scores = (d.history as Row[]).map((h) => Number(h.score)).filter((n) => Number.isFinite(n));
    const what = d.page ?? 'the site';
    if (scores.length === 0) return `No score history for ${what} in the last ${d.days} days.`;
    const newest = scores[0];
    const oldest = scores[scores.length - 1];
    return lines(
      `${what} over ${d.days} days: ${plural(scores.length, 'cycle')}; from ${oldest} to ${newest} (${signed(Math.round((newest - oldest) * 10) / 10)}); lowest ${Math.min(...scores)}, highest ${Math.max(...scores)}.`,
      d.annotations.length > 0 && `Annotations: ${(d.annotations as Row[]).slice(0, 5).map((a) => `${a.created_at ?? ''} ${a.message}`.trim()).join('; ')}${d.annotations.length > 5 ? ` (and ${d.annotations.length - 5} more)` : ''}`,
    );
  },
});

export const compareTool = defineTool({
  name: 'compare_pages',
  operation: compareOp,
  title: 'Compare two pages',
  description: 'Two pages side by side (score, trend, users, issues) and their difference (a - b).',
  argumentNotes: { a: null, b: null },
  pageFields: ['a', 'b'],
  summarize: (d) => {
    const side = (s: Row) => `${s.page}: score ${s.score ?? 'none'} (${s.trend}), ${s.active_users} active users, ${s.affected_users} affected, ${s.open_issues} open issues${s.dominant_signal ? `, mostly ${s.dominant_signal}` : ''}`;
    return lines(side(d.a), side(d.b), `Difference (a - b): score ${d.difference.score ?? 'n/a'}, open issues ${d.difference.open_issues}.`);
  },
});

export const elementsTool = defineTool({
  name: 'get_elements',
  operation: elementsOp,
  title: 'Elements with friction',
  description: 'A page\'s elements with the most friction: signals, users affected and a recommendation each.',
  pageFields: ['page'],
  summarize: (d) => d.elements.length === 0 ? `No friction on the elements of ${d.page} in this window.` : lines(
    `${plural(d.elements.length, 'element')} of ${d.page} with friction:`,
    bullets(d.elements, (e) => `${e.element_selector}${e.label ? ` '${e.label}'` : ''}: ${e.signal_count} signals, mostly ${e.dominant_signal}, ${plural(e.affected_users, 'user')}. ${e.recommendation}`, 'elements', d.elements.length, 5),
  ),
});

export const recommendationsTool = defineTool({
  name: 'get_recommendations',
  operation: recommendationsOp,
  title: 'What to fix first',
  description: 'What to fix first: issues needing attention by priority (0-100), each with its reason and a fix.',
  links: [{ at: 'recommendations[]', kind: 'issue', id: 'issue_id' }],
  summarize: (d) => d.recommendations.length === 0 ? 'No issues need attention (open, triaged, in progress or regressed): nothing to fix right now.' : lines(
    'What to fix first:',
    bullets(d.recommendations, (r) => `Priority ${r.priority} of 100 (${r.priority_reason}): ${r.title}. ${r.recommendation} [issue ${r.issue_id}]`, 'recommendations', d.recommendations.length, 5),
  ),
});

export const revenueTool = defineTool({
  name: 'get_revenue',
  operation: revenueOp,
  title: 'Revenue at risk',
  description: 'Revenue at risk a month per open issue, from conversion gaps (needs conversion events).',
  links: [{ at: 'issues[]', kind: 'issue', id: 'issue_id' }],
  summarize: (d) => {
    if (!d.tracking) return d.message ?? 'No conversion tracking.';
    const estimated = d.issues.filter((i) => i.monthly_revenue_at_risk_cents !== null).sort((a, b) => (b.monthly_revenue_at_risk_cents ?? 0) - (a.monthly_revenue_at_risk_cents ?? 0));
    return lines(
      `Revenue at risk: ${money(d.total_monthly_revenue_at_risk_cents, d.currency)} a month across ${plural(d.issues.length, 'open issue')} (average conversion ${money(d.average_value_cents, d.currency)}, ${d.average_value_source}).`,
      bullets(estimated, (i) => `${i.title}: ${money(i.monthly_revenue_at_risk_cents, d.currency)} a month (${i.confidence} confidence)`, 'issues with an estimate', estimated.length, 5),
      d.issues.length > estimated.length && `${d.issues.length - estimated.length} issues have too few sessions for an estimate.`,
    );
  },
});

export const SITE_TOOLS = [whoamiTool, listSitesTool, siteContextTool, scoresTool, pageTool, trendsTool, compareTool, elementsTool, recommendationsTool, revenueTool];
