// Issues: the API's list in the API's order (priority by default: what to fix first), with its
// filters (needing attention or one status, severity, page, signal type, assignee, a search)
// and its five sorts (also by the column headers) sent to the server, never applied in the
// browser; members select issues to change their status or assignee in bulk.
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../state/api.ts';
import { canTriage } from '../state/session.ts';
import { href, navigate } from '../state/router.ts';
import type { Issue, IssueList, MemberList, Scores } from '../api/types.ts';
import { useCurrency } from '../state/currency.ts';
import { ActionOutcome, Async, Empty, useAction, useApi } from '../components/async.tsx';
import { Badge, SignalChip, Time } from '../components/bits.tsx';
import { money, num, score, words } from '../lib/format.ts';
import { signalStyle } from '../lib/signal-style.ts';
import { ATTENTION_WORDS, ISSUE_SORTS, issueListQuery, patchEach, SETTABLE_STATUSES, SORT_COLUMNS, type IssueSort } from '../lib/issue-query.ts';

export const ISSUE_STATUSES = ['open', 'triaged', 'in_progress', 'verified', 'resolved', 'ignored', 'regressed'] as const;

/** A 14-day sparkline of an issue's daily signal counts (oldest first), when the API sends them. */
function Sparkline({ counts }: { counts: number[] }) {
  const max = Math.max(1, ...counts);
  const step = 56 / Math.max(1, counts.length - 1);
  const points = counts.map((n, k) => `${(k * step).toFixed(1)},${(15 - (n / max) * 14).toFixed(1)}`).join(' ');
  const total = counts.reduce((a, b) => a + b, 0);
  return (
    <svg class="sparkline" viewBox="0 0 56 16" role="img" aria-label={`${num(total)} signals in ${counts.length} days; most in one day ${num(max)}`}>
      <polyline points={points} fill="none" stroke="currentColor" stroke-width="1.5" />
    </svg>
  );
}

interface RowsOptions {
  currency?: string;
  /** With a sort and onSort, the sortable columns' headers are buttons (aria-sort on the current one). */
  sort?: IssueSort;
  onSort?(sort: IssueSort): void;
  /** With a selection, each row has a checkbox for bulk changes. */
  selected?: Set<string>;
  onSelect?(ids: Set<string>): void;
}

function Header({ column, label, title, options }: { column: IssueSort; label: string; title?: string; options: RowsOptions }) {
  const cls = column === 'priority' || column === 'users' || column === 'revenue' ? 'num' : undefined;
  if (!options.onSort) return <th scope="col" class={cls} title={title}>{label}</th>;
  const current = (options.sort ?? 'priority') === column;
  return (
    <th scope="col" class={cls} title={title} aria-sort={current ? 'descending' : undefined}>
      <button type="button" class="sort-header" data-sort={column} aria-pressed={current} onClick={() => options.onSort!(column)}>{label}{current ? ' ↓' : ''}</button>
    </th>
  );
}

/** The issues in the order given (the API's), with priority, the users of both windows and the money at risk. */
export function IssueRows({ issues, ...options }: { issues: Issue[] } & RowsOptions) {
  const { currency = 'USD', selected, onSelect } = options;
  const sparklines = issues.some((i) => i.daily_counts);
  const toggle = (id: string, on: boolean) => {
    const next = new Set(selected);
    if (on) next.add(id);
    else next.delete(id);
    onSelect!(next);
  };
  const allSelected = selected !== undefined && issues.length > 0 && issues.every((i) => selected.has(i.id));
  return (
    <div class="table-scroll">
      <table class="issues">
        <thead>
          <tr>
            {selected && onSelect && <th scope="col"><input type="checkbox" aria-label="Select every issue shown" checked={allSelected} onChange={(e) => onSelect(e.currentTarget.checked ? new Set(issues.map((i) => i.id)) : new Set())} /></th>}
            <Header column="priority" label={SORT_COLUMNS.priority} title="0 to 100: users affected in 7 days, severity, signal weight and revenue at risk" options={options} />
            <Header column="severity" label={SORT_COLUMNS.severity} options={options} /><th scope="col">Issue</th><th scope="col">Type</th><th scope="col">Status</th>
            <th scope="col" class="num">Users, 24 h</th><Header column="users" label={SORT_COLUMNS.users} options={options} />
            <Header column="revenue" label={SORT_COLUMNS.revenue} options={options} />
            {sparklines && <th scope="col">14 days</th>}
            <Header column="last_seen" label={SORT_COLUMNS.last_seen} options={options} />
          </tr>
        </thead>
        <tbody>
          {issues.map((i) => (
            <tr key={i.id} data-issue={i.id}>
              {selected && onSelect && <td><input type="checkbox" aria-label={`Select ${i.title}`} checked={selected.has(i.id)} onChange={(e) => toggle(i.id, e.currentTarget.checked)} /></td>}
              <td class="num"><span class="priority-number" title={`Priority ${score(i.priority)} of 100: ${i.priority_reason}`}>{score(i.priority)}</span></td>
              <td><Badge kind="severity" value={i.severity} /></td>
              <th scope="row">
                <a href={href('issues', i.id)}>{i.title}</a>
                <div class="muted small"><code>{i.page}</code>{i.assigned_to && <> · assigned to {i.assigned_to}</>}</div>
                <div class="muted small reason">Why: {i.priority_reason}</div>
              </th>
              <td><SignalChip type={i.type} /></td>
              <td><Badge kind="status" value={i.status} /></td>
              <td class="num">{num(i.user_count)}</td>
              <td class="num">{num(i.users_7d)}</td>
              <td class="num">{i.revenue_at_risk_cents == null ? <span class="muted" title="Not estimated: the site tracks no conversions, or too few sessions">–</span> : `${money(i.revenue_at_risk_cents, currency)}/mo`}</td>
              {sparklines && <td>{i.daily_counts ? <Sparkline counts={i.daily_counts} /> : '–'}</td>}
              <td><Time iso={i.last_seen_at} relative /></td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * Bulk changes of the selected issues (members and up): a status, or an assignee picked from
 * the org's members; one PATCH per issue through the API. The selection stays (so a status and
 * an assignee can follow each other), minus issues the list no longer shows; failures are named.
 */
function BulkBar({ site, selected, members, action, onDone }: { site: string; selected: Set<string>; members: string[]; action: ReturnType<typeof useAction>; onDone(): void }) {
  const [status, setStatus] = useState<string>('triaged');
  const [assignee, setAssignee] = useState<string>(members[0] ?? '');
  const apply = (body: Record<string, unknown>, what: string) => void action.run(async () => {
    const { done, failed } = await patchEach([...selected], (id) => api.patch(`/manage/issues/${id}`, body, { site_id: site }));
    onDone();
    if (failed.length > 0) throw new ApiError('partial', `${done.length} changed; ${failed.length} refused: ${failed.map((f) => (f.error as Error).message).join('; ')}`, 0);
  }, `${selected.size} issue${selected.size === 1 ? '' : 's'} ${what}.`);
  return (
    <div class="bulk-bar" role="group" aria-label="Change the selected issues">
      <strong>{num(selected.size)} selected</strong>
      <label class="inline"><span>Status</span>
        <select id="bulk-status" value={status} onChange={(e) => setStatus(e.currentTarget.value)}>{SETTABLE_STATUSES.map((st) => <option key={st} value={st}>{words(st)}</option>)}</select>
      </label>
      <button type="button" id="bulk-status-apply" disabled={action.busy} onClick={() => apply({ status }, `set to ${words(status)}`)}>Set status</button>
      <label class="inline"><span>Assign to</span>
        <select id="bulk-assignee" value={assignee} onChange={(e) => setAssignee(e.currentTarget.value)}>
          {members.map((m) => <option key={m} value={m}>{m}</option>)}
          <option value="">Nobody (unassign)</option>
        </select>
      </label>
      <button type="button" id="bulk-assign-apply" disabled={action.busy} onClick={() => apply({ assigned_to: assignee || null }, assignee ? `assigned to ${assignee}` : 'unassigned')}>Assign</button>
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
  const q = query.get('q') ?? '';
  const assignedTo = query.get('assigned_to') ?? '';
  const sort = (query.get('sort') ?? 'priority') as IssueSort;
  const set = (change: Record<string, string>) => navigate(href('issues', { status, severity, page, type, q, assigned_to: assignedTo, sort: sort === 'priority' ? '' : sort, ...change }));
  const list = useApi(() => api.get<IssueList>('/query/issues', { site_id: site, ...issueListQuery({ status, severity, page, type, sort, q, assigned_to: assignedTo }), limit: 200 }),
    [site, status, severity, page, type, sort, q, assignedTo]);
  // The filters' choices: the site's scored pages and the signal types in their latest breakdowns.
  const scores = useApi(() => api.get<Scores>('/query/scores', { site_id: site }), [site]);
  const members = useApi(() => api.get<MemberList>('/manage/members'), []);
  const memberEmails = members.data?.members.map((m) => m.email).sort() ?? [];
  const currency = useCurrency(site);
  const [search, setSearch] = useState(q);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const bulk = useAction();
  // Only issues the list shows stay selected (a status change may take them out of the filter).
  useEffect(() => {
    const shown = new Set(list.data?.issues.map((i) => i.id) ?? []);
    if ([...selected].some((id) => !shown.has(id))) setSelected(new Set([...selected].filter((id) => shown.has(id))));
  }, [list.data]);
  const pages = [...new Set([...(scores.data?.site.pages.map((p) => p.page) ?? []), ...(list.data?.issues.map((i) => i.page) ?? []), ...(page ? [page] : [])])].sort();
  const types = [...new Set([
    ...(scores.data?.site.pages.flatMap((p) => p.breakdown.map((b) => b.signal)) ?? []), ...(list.data?.issues.map((i) => i.type) ?? []), ...(type ? [type] : []),
  ])].sort();
  const assignees = [...new Set([...memberEmails, ...(assignedTo ? [assignedTo] : [])])];

  return (
    <div class="screen">
      <h1>Issues</h1>
      <form class="filters" aria-label="Filter and sort issues" onSubmit={(e) => { e.preventDefault(); set({ q: search.trim() }); }}>
        <label class="inline"><span>Search</span>
          <input type="search" id="issue-search" placeholder="Title or selector" value={search} maxLength={200} onInput={(e) => setSearch(e.currentTarget.value)} onBlur={() => { if (search.trim() !== q) set({ q: search.trim() }); }} />
        </label>
        <Select label="Status" value={status} onChange={(v) => set({ status: v })}
          options={[['attention', 'Needs attention'], ['any', 'Any status'], ...ISSUE_STATUSES.map((s): [string, string] => [s, words(s)])]} />
        <Select label="Severity" value={severity} onChange={(v) => set({ severity: v })} options={[['', 'Any severity'], ['critical', 'critical'], ['high', 'high'], ['medium', 'medium'], ['low', 'low']]} />
        <Select label="Page" value={page} onChange={(v) => set({ page: v })} options={[['', 'Any page'], ...pages.map((p): [string, string] => [p, p])]} />
        <Select label="Signal" value={type} onChange={(v) => set({ type: v })} options={[['', 'Any signal'], ...types.map((t): [string, string] => [t, signalStyle(t).label])]} />
        <Select label="Assigned to" value={assignedTo} onChange={(v) => set({ assigned_to: v })} options={[['', 'Anyone'], ...assignees.map((m): [string, string] => [m, m])]} />
        <Select label="Sort by" value={sort} onChange={(v) => set({ sort: v === 'priority' ? '' : v })} options={Object.entries(ISSUE_SORTS)} />
      </form>
      <Async load={list} what="issues">
        {(l) => (
          <>
            <p class="muted small" role="status">
              {num(l.total)} issue{l.total === 1 ? '' : 's'} {statusWords(status)}{status === 'attention' ? ` (${ATTENTION_WORDS})` : ''}{q ? ` matching “${q}”` : ''}, by {ISSUE_SORTS[sort] ? ISSUE_SORTS[sort].toLowerCase() : 'priority'}
              {l.total > l.issues.length ? `; the first ${num(l.issues.length)} are shown` : ''}
            </p>
            {canTriage.value && selected.size > 0 && (
              <>
                <BulkBar site={site} selected={selected} members={memberEmails} action={bulk} onDone={list.reload} />
                <button type="button" class="link" onClick={() => setSelected(new Set())}>Clear selection</button>
              </>
            )}
            <ActionOutcome action={bulk} what="change the selected issues" />
            {l.issues.length === 0 ? <Empty>No issues match these filters.</Empty> : (
              <>
                <IssueRows issues={l.issues} currency={currency} sort={sort} onSort={(next) => set({ sort: next === 'priority' ? '' : next })}
                  {...(canTriage.value ? { selected, onSelect: setSelected } : {})} />
                <IssueColumnsNote />
              </>
            )}
          </>
        )}
      </Async>
    </div>
  );
}
