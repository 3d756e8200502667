// Prompts: ready-made requests an assistant fills with facts Mallard computed (verdicts,
// scores, counts), so nothing it concludes rests on the model's own arithmetic.
import type { GetPromptResult, Prompt } from '@modelcontextprotocol/sdk/types.js';
import { DAY_MS } from '../domain/time.ts';
import { AppError } from '../domain/errors.ts';
import { checkDeploy, listDeploys } from '../features/deploys/service.ts';
import { getSiteContext } from '../features/mcp-context/service.ts';
import { getRecommendations, getRevenueAtRisk } from '../features/revenue/service.ts';
import { getPageDetail, getSiteScores, getTrends } from '../features/scores/service.ts';
import { knownPage } from '../features/pages/known-pages.ts';
import { pageHeatmap } from '../features/heatmaps/page-heatmap.ts';
import { sessionTimeline } from '../features/sessions/session-timeline.ts';
import { openIssues } from '../features/issues/open-issues.ts';
import { listIssueRecords } from '../features/issues/service.ts';
import { listAlerts } from '../features/alerts/alert-list.ts';
import { summarizePoints } from './heatmap-summary.ts';
import { mayWrite, siteOf, type McpSession } from './session.ts';
import { bullets, countsLine, lines, plural, signed } from './text.ts';
import { formatMoney } from '../domain/money.ts';

type Args = Record<string, string | undefined>;
type Row = Record<string, unknown>;

interface PromptDef extends Prompt {
  build(session: McpSession, args: Args, siteId: string | undefined): Promise<string>;
}

const SITE_ARG = { name: 'site_id', description: 'The site (a UUID); needed only for an org-level credential without a default site', required: false };
const money = (cents: number | null | undefined, currency: string) => (cents === null || cents === undefined ? 'no estimate' : formatMoney(cents, currency));
const FACTS_NOTE = 'The facts above were computed by Mallard; use them as they are rather than recomputing them.';

function required(args: Args, name: string): string {
  const value = args[name];
  if (!value) throw new AppError('invalid_input', `${name} is required`, { field: name, reason: 'required' });
  return value;
}

const postDeployCheck: PromptDef = {
  name: 'post_deploy_check',
  title: 'Post-deploy check',
  description: 'Did the latest production deploy (or deploy_id, or the latest to environment) make things worse? Embeds Mallard\'s PASS / WARN / FAIL verdict per page and overall.',
  arguments: [
    { name: 'deploy_id', description: 'The deploy (a UUID); default the latest to environment', required: false },
    { name: 'environment', description: 'Without deploy_id: the environment whose latest deploy is checked (default production)', required: false },
    SITE_ARG,
  ],
  async build(session, args, site_id) {
    const check = await checkDeploy({ ctx: session.ctx, input: { site_id, deploy_id: args.deploy_id, environment: args.environment || undefined } });
    const d = check.deploy;
    const failing = check.pages.filter((p) => p.verdict !== 'PASS').map((p) => p.page);
    const next = {
      FAIL: lines(
        `Tell me what got worse and where to look first: use get_page, get_elements and get_page_heatmap on ${failing.length ? failing.join(', ') : 'the pages named above'}, and get_issue for the new issues.`,
        mayWrite(session.ctx.auth)
          ? `Then record what you found with add_annotation: a message naming deploy ${d.version} and the failing pages.`
          : 'This credential cannot write: list what a person should record on the timeline.',
      ),
      WARN: 'Tell me which pages rose and which high-severity issues appeared, and whether it looks like noise or a regression (get_trends on those pages and get_issue on the new issues help).',
      PASS: 'Confirm briefly that the deploy did not make things worse, naming the largest change.',
      PENDING: 'Tell me the check is pending and to ask again once the pipeline has scored traffic after the deploy.',
    }[check.verdict];
    return lines(
      `Post-deploy check of ${d.version} (${d.environment}, deployed ${d.deployed_at}, deploy id ${d.id}).`,
      `Verdict: ${check.verdict} (WARN when a page rose ${check.thresholds.warn_delta} points or on a new high-severity issue, FAIL at ${check.thresholds.fail_delta} or on a new critical issue).`,
      `Site score: ${d.confusion_before} before, ${d.confusion_after ?? 'not yet'} after${d.delta === null ? '' : ` (${signed(d.delta)})`}.`,
      'Reasons:', check.reasons.map((r) => `- ${r}`),
      check.pages.length > 0 && 'Pages, biggest rise first:',
      bullets(check.pages, (p) => `${p.page}: ${p.before ?? 'not scored'} -> ${p.after} (${signed(p.delta)}) ${p.verdict}`, 'pages'),
      check.new_critical_issues.length > 0 && 'New critical issues:',
      bullets(check.new_critical_issues, (i) => `${i.title} on ${i.page} (id ${i.id})`, 'issues'),
      check.new_high_issues.length > 0 && 'New high-severity issues:',
      bullets(check.new_high_issues, (i) => `${i.title} on ${i.page} (id ${i.id})`, 'issues'),
      '', FACTS_NOTE, next,
    );
  },
};

const triageOpenIssues: PromptDef = {
  name: 'triage_open_issues',
  title: 'Triage open issues',
  description: 'Go through the issues needing attention (open, triaged, in_progress, regressed) by priority (users in 7 days, severity, signal weight, revenue at risk) and propose what to do with each.',
  arguments: [SITE_ARG],
  async build(session, _args, site_id) {
    const [context, fixes] = await Promise.all([
      getSiteContext({ ctx: session.ctx, input: { site_id } }),
      getRecommendations({ ctx: session.ctx, input: { site_id, limit: 20 } }),
    ]);
    if (context.open_issue_count === 0) return lines(context.state, 'No issue needs attention (open, triaged, in progress or regressed). Say so, and suggest looking at the worst pages with get_page.');
    const writes = mayWrite(session.ctx.auth);
    return lines(
      context.state,
      `Issues needing attention, highest priority first (${fixes.recommendations.length} of ${context.open_issue_count}; priority 0-100 from users in 7 days, severity, signal weight and revenue at risk):`,
      fixes.recommendations.map((r) => `- [priority ${r.priority}: ${r.priority_reason}] ${r.title}: page ${r.page}, element ${r.element_selector || '(none)'}, status ${r.status}, ${plural(r.affected_users, 'user')} in 24 h, revenue at risk ${money(r.monthly_revenue_at_risk_cents, fixes.currency)} a month. Suggested fix: ${r.recommendation} (id ${r.issue_id})`),
      context.open_issue_count > fixes.recommendations.length && `- ...and ${context.open_issue_count - fixes.recommendations.length} more issues needing attention, of lower priority`,
      '', FACTS_NOTE,
      'For each issue, propose a status (triaged, in_progress, ignored or resolved) with a one-line reason, and say which three to work on first (the priority above is Mallard\'s order; say why if you depart from it).',
      writes ? 'Once I agree, apply the changes with update_issue.' : 'This credential cannot change issues: list the changes for a person to make.',
    );
  },
};

const diagnosePage: PromptDef = {
  name: 'diagnose_page',
  title: 'Diagnose a page',
  description: 'What confuses people on one page: its score and breakdown, elements, issues, alerts, deploys and heatmap, then a diagnosis and a fix.',
  arguments: [{ name: 'page_path', description: 'The page path, e.g. /checkout (completable)', required: true }, SITE_ARG],
  async build(session, args, site_id) {
    const page = await knownPage({ ctx: session.ctx, input: { site_id, page: required(args, 'page_path'), field: 'page_path' } });
    const [detail, heatmap] = await Promise.all([
      getPageDetail({ ctx: session.ctx, input: { site_id, page } }),
      pageHeatmap({ ctx: session.ctx, input: { site_id, page } }),
    ]);
    const s = detail.score as Row | null;
    const breakdown = (s?.breakdown ?? []) as { signal: string; count: number; weighted_score: number; percentage: number }[];
    return lines(
      s ? `${page}: score ${s.score} (${s.duck_state}), trend ${s.trend}, ${s.active_users} active users, ${s.affected_users} affected.`
        : `${page}: seen but not scored yet (fewer than 3 active users).`,
      breakdown.length > 0 && `Score breakdown: ${breakdown.map((b) => `${b.signal} ${b.percentage}% (${b.count} fires)`).join(', ')}.`,
      detail.elements.length > 0 && 'Elements with the most friction (7 days):',
      bullets(detail.elements, (e) => `${e.element_selector}${e.label ? ` '${e.label}'` : ''}: ${e.signal_count} signals (${countsLine(e.signals)}), ${plural(e.affected_users, 'user')}`, 'elements', detail.elements.length, 5),
      detail.issues.length > 0 && 'Open issues:',
      bullets(detail.issues as Row[], (i) => `[${i.severity}] ${i.title} (id ${i.id})`, 'issues', detail.issues.length, 5),
      detail.active_alerts.length > 0 && `Active alerts: ${(detail.active_alerts as Row[]).map((a) => a.message).join('; ')}.`,
      detail.recent_deploys.length > 0 && `Recent deploys: ${detail.recent_deploys.slice(0, 3).map((d) => `${d.version} at ${d.deployed_at}${d.delta === null ? '' : ` (site ${signed(d.delta)})`}`).join('; ')}.`,
      'Page heatmap (30 days):', summarizePoints(heatmap.points.map((p) => ({ x: p.vx, y: p.vy, signal: p.signal, el: p.el })), 'viewport'),
      '', FACTS_NOTE,
      `Diagnose what confuses people on ${page}: which element and which kind of friction, since when (compare with the deploys), and one concrete fix. For examples, read sessions linked to the top issue with get_issue and get_session.`,
    );
  },
};

const investigateSession: PromptDef = {
  name: 'investigate_session',
  title: 'Investigate a session',
  description: 'What one user went through in a session, where it went wrong, and which open issues it shows.',
  arguments: [{ name: 'session_id', description: 'The session id: 32 hexadecimal characters (completable)', required: true }, SITE_ARG],
  async build(session, args, site_id) {
    const timeline = await sessionTimeline({ ctx: session.ctx, input: { site_id, session_id: required(args, 'session_id') } });
    const s = timeline.session;
    const types = new Set(Object.keys(s.signal_counts));
    const related = (await openIssues({ ctx: session.ctx, input: { site_id, limit: 100 } }))
      .filter((i) => s.pages.includes(i.page) && types.has(i.type));
    return lines(
      `Session ${s.session_id}: ${s.device_type ?? 'unknown device'}${s.browser ? `, ${s.browser}` : ''}; ${s.started_at} to ${s.ended_at} (${Math.round(s.duration_ms / 1000)} s); ${plural(s.page_count, 'page')}: ${s.pages.join(' -> ')}; ${s.converted ? 'converted' : 'did not convert'}.`,
      s.signal_count > 0 ? `Friction signals: ${countsLine(s.signal_counts)}.` : 'No friction signals.',
      'What happened, in order (Mallard\'s narrative):', timeline.narrative,
      related.length > 0 && 'Open issues on the same pages with the same kinds of friction:',
      bullets(related, (i) => `[${i.severity}] ${i.title} (id ${i.id})`, 'issues', related.length, 5),
      '', FACTS_NOTE,
      'Explain what this user went through and where it went wrong, without inventing causes the events do not show, and say which of the issues above it illustrates.',
    );
  },
};

const weeklySummary: PromptDef = {
  name: 'weekly_summary',
  title: 'Weekly summary',
  description: 'The last 7 days in under 300 words: scores, new and closed issues, deploys, alerts and revenue at risk.',
  arguments: [SITE_ARG],
  async build(session, _args, site_id) {
    const ctx = session.ctx;
    const since = ctx.now - 7 * DAY_MS;
    const inWeek = (iso: string | null | undefined) => iso !== null && iso !== undefined && Date.parse(iso) >= since;
    const [scores, trends, issues, deploys, alerts, revenue] = await Promise.all([
      getSiteScores({ ctx, input: { site_id } }),
      getTrends({ ctx, input: { site_id, days: 7 } }),
      listIssueRecords({ ctx, input: { site_id, limit: 200 } }),
      listDeploys({ ctx, input: { site_id, limit: 200 } }),
      listAlerts({ ctx, input: { site_id, limit: 200 } }),
      getRevenueAtRisk({ ctx, input: { site_id } }),
    ]);
    const history = (trends.history as Row[]).map((h) => Number(h.score));
    const opened = issues.issues.filter((i) => inWeek(i.first_seen_at));
    const closed = issues.issues.filter((i) => ['resolved', 'verified'].includes(i.status) && inWeek(i.status_changed_at));
    const regressed = issues.issues.filter((i) => i.status === 'regressed' && inWeek(i.status_changed_at));
    const weekDeploys = deploys.deploys.filter((d) => inWeek(d.deployed_at));
    const fired = alerts.alerts.filter((a) => inWeek(a.fired_at as string));
    const worst = (scores.site.pages as Row[]).slice(0, 3);
    return lines(
      `The last 7 days (to ${new Date(ctx.now).toISOString()}):`,
      `- ${scores.headline}.`,
      `- Overall score now ${scores.site.overall_score} of 100, trend ${scores.site.overall_trend}${history.length ? `; a week ago ${history[history.length - 1]}` : ''}.`,
      worst.length > 0 && `- Worst pages: ${worst.map((p) => `${p.page} ${p.score}`).join(', ')}.`,
      `- Issues: ${opened.length} new (${opened.filter((i) => i.severity === 'critical' || i.severity === 'high').length} high or critical), ${closed.length} resolved or verified, ${regressed.length} regressed.`,
      opened.length > 0 && `- Highest priority new: ${opened.slice(0, 3).map((i) => `[${i.severity}, priority ${i.priority}] ${i.title}`).join('; ')}.`,
      `- Deploys: ${weekDeploys.length}${weekDeploys.length ? ` (${weekDeploys.slice(0, 5).map((d) => `${d.version}${d.delta === null ? '' : ` ${signed(d.delta)}`}`).join(', ')})` : ''}.`,
      `- Alerts fired: ${fired.length}${fired.length ? ` (${countsLine(Object.fromEntries([...new Set(fired.map((a) => String(a.trigger_type)))].map((t) => [t, fired.filter((a) => a.trigger_type === t).length])))})` : ''}.`,
      revenue.tracking ? `- Revenue at risk: ${money(revenue.total_monthly_revenue_at_risk_cents, revenue.currency)} a month.` : '- Revenue at risk: no conversion tracking.',
      '', FACTS_NOTE,
      'Write the weekly summary for the team in under 300 words: how the site is doing, what got better, what got worse, and the one thing to fix next.',
    );
  },
};

const PROMPTS: readonly PromptDef[] = [postDeployCheck, triageOpenIssues, diagnosePage, investigateSession, weeklySummary];

export const listPrompts = (): { prompts: Prompt[] } => ({
  prompts: PROMPTS.map(({ name, title, description, arguments: args }) => ({ name, title, description, arguments: args })),
});

/** The prompt's one user message, or an AppError (unknown prompt, a missing or bad argument). */
export async function getPrompt(session: McpSession, name: string, args: Args = {}): Promise<GetPromptResult> {
  const prompt = PROMPTS.find((p) => p.name === name);
  if (!prompt) throw new AppError('not_found', `No prompt ${name}: the prompts are ${PROMPTS.map((p) => p.name).join(', ')}`);
  const text = await prompt.build(session, args, siteOf(session, args.site_id));
  return { description: prompt.description, messages: [{ role: 'user', content: { type: 'text', text } }] };
}
