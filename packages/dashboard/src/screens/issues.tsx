// Issues: the API's list in the API's order (priority by default: what to fix first), with its
// filters (needing attention or one status, severity, page, signal type) and its five sorts
// sent to the server, never applied in the browser.
import { api } from '../state/api.ts';
import { href, navigate } from '../state/router.ts';
import type { Issue, IssueList, Scores } from '../state/types.ts';
import { useCurrency } from '../state/currency.ts';
import { Async, Empty, useApi } from '../components/async.tsx';
import { Badge, SignalChip, Time } from '../components/bits.tsx';
import { money, num, score, words } from '../lib/format.ts';
import { signalStyle } from '../lib/signal-style.ts';
import { ATTENTION_WORDS, ISSUE_SORTS, issueListQuery, type IssueSort } from '../lib/issue-query.ts';

export const ISSUE_STATUSES = ['open', 'triaged', 'in_progress', 'verified', 'resolved', 'ignored', 'regressed'] as const;

/** The issues in the order given (the API's), with priority, the users of both windows and the money at risk. */
export function IssueRows({ issues, currency = 'USD' }: { issues: Issue[]; currency?: string }) {
  return (
    <div class="table-scroll">
      <table class="issues">
        <thead>
          <tr>
            <th scope="col" class="num" title="0 to 100: users affected in 7 days, severity, signal weight and revenue at risk">Priority</th>
            <th scope="col">Severity</th><th scope="col">Issue</th><th scope="col">Type</th><th scope="col">Status</th>
            <th scope="col" class="num">Users, 24 h</th><th scope="col" class="num">Users, 7 days</th>
            <th scope="col" class="num">Revenue at risk</th><th scope="col">Last seen</th>
          </tr>
        </thead>
        <tbody>
          {issues.map((i) => (
            <tr key={i.id} data-issue={i.id}>
              <td class="num"><span class="priority-number" title={`Priority ${score(i.priority)} of 100: ${i.priority_reason}`}>{score(i.priority)}</span></td>
              <td><Badge kind="severity" value={i.severity} /></td>
              <th scope="row">
                <a href={href('issues', i.id)}>{i.title}</a>
                <div class="muted small"><code>{i.page}</code></div>
                <div class="muted small reason">Why: {i.priority_reason}</div>
              </th>
              <td><SignalChip type={i.type} /></td>
              <td><Badge kind="status" value={i.status} /></td>
              <td class="num">{num(i.user_count)}</td>
              <td class="num">{num(i.users_7d)}</td>
              <td class="num">{i.revenue_at_risk_cents == null ? <span class="muted" title="Not estimated: the site tracks no conversions, or too few sessions">–</span> : `${money(i.revenue_at_risk_cents, currency)}/mo`}</td>
              <td><Time iso={i.last_seen_at} relative /></td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** How the columns count, in one line under every issue table. */
export const IssueColumnsNote = () => (
  <p class="muted small">Users, 24 h: users affected in the 24 hours to the latest pipeline cycle; users, 7 days: in the 7 days to it. Revenue at risk is a month's, from conversions of affected and calm sessions. Priority (0 to 100) weighs users in 7 days, severity, signal weight and revenue at risk.</p>
);

function Select({ label, value, options, onChange }: { label: string; value: string; options: [string, string][]; onChange(v: string): void }) {
  return (
    <label class="inline">
      <span>{label}</span>
      <select value={value} onChange={(e) => onChange(e.currentTarget.value)}>
        {options.map(([v, text]) => <option key={v} value={v}>{text}</option>)}
      </select>
    </label>
  );
}

const statusWords = (status: string) => (status === 'attention' ? 'needing attention' : status === 'any' ? '' : words(status));

export function IssuesScreen({ site, query }: { site: string; query: URLSearchParams }) {
  const status = query.get('status') ?? 'attention';
  const severity = query.get('severity') ?? '';
  const page = query.get('page') ?? '';
  const type = query.get('type') ?? '';
  const sort = (query.get('sort') ?? 'priority') as IssueSort;
  const set = (change: Record<string, string>) => navigate(href('issues', { status, severity, page, type, sort: sort === 'priority' ? '' : sort, ...change }));
  const list = useApi(() => api.get<IssueList>('/query/issues', { site_id: site, ...issueListQuery({ status, severity, page, type, sort }), limit: 200 }), [site, status, severity, page, type, sort]);
  // The filters' choices: the site's scored pages and the signal types in their latest breakdowns.
  const scores = useApi(() => api.get<Scores>('/query/scores', { site_id: site }), [site]);
  const currency = useCurrency(site);
  const pages = [...new Set([...(scores.data?.site.pages.map((p) => p.page) ?? []), ...(list.data?.issues.map((i) => i.page) ?? []), ...(page ? [page] : [])])].sort();
  const types = [...new Set([
    ...(scores.data?.site.pages.flatMap((p) => p.breakdown.map((b) => b.signal)) ?? []), ...(list.data?.issues.map((i) => i.type) ?? []), ...(type ? [type] : []),
  ])].sort();

  return (
    <div class="screen">
      <h1>Issues</h1>
      <form class="filters" aria-label="Filter and sort issues" onSubmit={(e) => e.preventDefault()}>
        <Select label="Status" value={status} onChange={(v) => set({ status: v })}
          options={[['attention', 'Needs attention'], ['any', 'Any status'], ...ISSUE_STATUSES.map((s): [string, string] => [s, words(s)])]} />
        <Select label="Severity" value={severity} onChange={(v) => set({ severity: v })} options={[['', 'Any severity'], ['critical', 'critical'], ['high', 'high'], ['medium', 'medium'], ['low', 'low']]} />
        <Select label="Page" value={page} onChange={(v) => set({ page: v })} options={[['', 'Any page'], ...pages.map((p): [string, string] => [p, p])]} />
        <Select label="Signal" value={type} onChange={(v) => set({ type: v })} options={[['', 'Any signal'], ...types.map((t): [string, string] => [t, signalStyle(t).label])]} />
        <Select label="Sort by" value={sort} onChange={(v) => set({ sort: v === 'priority' ? '' : v })} options={Object.entries(ISSUE_SORTS)} />
      </form>
      <Async load={list} what="issues">
        {(l) => (
          <>
            <p class="muted small" role="status">
              {num(l.total)} issue{l.total === 1 ? '' : 's'} {statusWords(status)}{status === 'attention' ? ` (${ATTENTION_WORDS})` : ''}, by {ISSUE_SORTS[sort] ? ISSUE_SORTS[sort].toLowerCase() : 'priority'}
              {l.total > l.issues.length ? `; the first ${num(l.issues.length)} are shown` : ''}
            </p>
            {l.issues.length === 0 ? <Empty>No issues match these filters.</Empty> : <><IssueRows issues={l.issues} currency={currency} /><IssueColumnsNote /></>}
          </>
        )}
      </Async>
    </div>
  );
}
