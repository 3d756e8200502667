// Issues: filtered by status (the API's filter), severity, page and signal type (narrowing the
// fetched list), most severe first.
import { api } from '../state/api.ts';
import { href, navigate } from '../state/router.ts';
import type { Issue, IssueList, Severity } from '../state/types.ts';
import { Async, Empty, useApi } from '../components/async.tsx';
import { Badge, SignalChip, Time } from '../components/bits.tsx';
import { num, words } from '../lib/format.ts';

export const ISSUE_STATUSES = ['open', 'triaged', 'in_progress', 'verified', 'resolved', 'ignored', 'regressed'] as const;
const RANK: Record<Severity, number> = { critical: 0, high: 1, medium: 2, low: 3 };

export const bySeverity = (a: Issue, b: Issue) => RANK[a.severity] - RANK[b.severity] || b.severity_score - a.severity_score;

export function IssueRows({ issues }: { issues: Issue[] }) {
  return (
    <div class="table-scroll">
      <table class="issues">
        <thead><tr><th scope="col">Severity</th><th scope="col">Issue</th><th scope="col">Type</th><th scope="col">Status</th><th scope="col" class="num">Users</th><th scope="col">Last seen</th></tr></thead>
        <tbody>
          {[...issues].sort(bySeverity).map((i) => (
            <tr key={i.id} data-issue={i.id}>
              <td><Badge kind="severity" value={i.severity} /></td>
              <th scope="row"><a href={href('issues', i.id)}>{i.title}</a><div class="muted small"><code>{i.page}</code></div></th>
              <td><SignalChip type={i.type} /></td>
              <td><Badge kind="status" value={i.status} /></td>
              <td class="num">{num(i.user_count)}</td>
              <td><Time iso={i.last_seen_at} relative /></td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

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

export function IssuesScreen({ site, query }: { site: string; query: URLSearchParams }) {
  const status = query.get('status') ?? 'open';
  const severity = query.get('severity') ?? '';
  const page = query.get('page') ?? '';
  const type = query.get('type') ?? '';
  const set = (change: Record<string, string>) => navigate(href('issues', { status, severity, page, type, ...change }));
  const list = useApi(() => api.get<IssueList>('/query/issues', { site_id: site, status: status === 'any' ? undefined : status, limit: 200 }), [site, status]);

  return (
    <div class="screen">
      <h1>Issues</h1>
      <Async load={list} what="issues">
        {(l) => {
          const pages = [...new Set(l.issues.map((i) => i.page))].sort();
          const types = [...new Set(l.issues.map((i) => i.type))].sort();
          const shown = l.issues.filter((i) => (!severity || i.severity === severity) && (!page || i.page === page) && (!type || i.type === type));
          return (
            <>
              <form class="filters" aria-label="Filter issues" onSubmit={(e) => e.preventDefault()}>
                <Select label="Status" value={status} onChange={(v) => set({ status: v })} options={[['any', 'Any status'], ...ISSUE_STATUSES.map((s): [string, string] => [s, words(s)])]} />
                <Select label="Severity" value={severity} onChange={(v) => set({ severity: v })} options={[['', 'Any severity'], ['critical', 'critical'], ['high', 'high'], ['medium', 'medium'], ['low', 'low']]} />
                <Select label="Page" value={page} onChange={(v) => set({ page: v })} options={[['', 'Any page'], ...pages.map((p): [string, string] => [p, p])]} />
                <Select label="Signal" value={type} onChange={(v) => set({ type: v })} options={[['', 'Any signal'], ...types.map((t): [string, string] => [t, words(t)])]} />
              </form>
              <p class="muted small" role="status">{num(shown.length)} of {num(l.total)} {status === 'any' ? '' : words(status)} issue{l.total === 1 ? '' : 's'}{l.total > l.issues.length ? ` (the ${num(l.issues.length)} most severe are filtered here)` : ''}</p>
              {shown.length === 0 ? <Empty>No issues match these filters.</Empty> : <IssueRows issues={shown} />}
            </>
          );
        }}
      </Async>
    </div>
  );
}
