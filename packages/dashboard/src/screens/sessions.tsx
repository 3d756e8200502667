// Sessions: the sessions search (filters, sorts and pages from the server), and one session as a
// timeline: the narrative, its clips at their moments (each opening the player), each page with
// the time spent on it, each signal as a labelled chip.
import { useState } from 'preact/hooks';
import { api } from '../state/api.ts';
import { href, navigate } from '../state/router.ts';
import type { SessionDetail, SessionEvent, SessionSearchList } from '../api/types.ts';
import { Async, Empty, useApi } from '../components/async.tsx';
import { SignalChip, Time } from '../components/bits.tsx';
import { SessionClips } from '../components/clips.tsx';
import { duration, num, words } from '../lib/format.ts';
import { signalStyle } from '../lib/signal-style.ts';
import { visits } from '../lib/visits.ts';
import { RangePicker } from '../components/filters.tsx';
import { DEVICE_CLASSES, VIEWPORTS } from '../layout/heatmap.ts';
import { SESSION_SORTS, SESSIONS_PAGE_SIZE, sessionFilters, sessionSearchQuery, type SessionFilters } from '../lib/session-query.ts';


function EventLine({ e }: { e: SessionEvent }) {
  if (e.type === 'signal' && e.signal_type) {
    const times = typeof e.props?.count === 'number' ? ` ×${e.props.count}` : '';
    const what = e.label ? `“${e.label}”` : e.element_selector ?? '';
    return <li class="event signal"><Time iso={e.occurred_at} short /> <SignalChip type={e.signal_type} text={`${signalStyle(e.signal_type).label}${times}${what ? ` on ${what}` : ''}`} />{e.element_selector && <code class="small"> {e.element_selector}</code>}</li>;
  }
  if (e.type === 'track') return <li class="event track"><Time iso={e.occurred_at} short /> <span class="chip plain">event: {e.name}</span></li>;
  return <li class="event other"><Time iso={e.occurred_at} short /> <span class="chip plain">{words(e.type)}</span></li>;
}

function SessionView({ site, id }: { site: string; id: string }) {
  const detail = useApi(() => api.get<SessionDetail>('/query/session', { site_id: site, session_id: id }), [site, id]);
  return (
    <Async load={detail} what="this session">
      {({ session: s, events, narrative }) => {
        const list = visits(events, s.ended_at);
        return (
          <>
            <h1>Session <code>{s.session_id.slice(0, 12)}…</code></h1>
            <p class="meta">
              {s.device_type ?? 'unknown device'}{s.browser && ` · ${s.browser}`}{s.os && ` on ${s.os}`}{s.viewport_bucket && ` · viewport ${s.viewport_bucket}`}
              {' '}· started <Time iso={s.started_at} /> · {s.duration_ms != null ? duration(s.duration_ms) : 'duration unknown'}
              {' '}· {s.converted ? 'converted' : 'did not convert'}{s.app_version && ` · app ${s.app_version}`}
            </p>
            <section class="card" aria-labelledby="ss-story">
              <h2 id="ss-story">What happened</h2>
              <p class="narrative">{narrative}</p>
            </section>
            <section class="card" aria-labelledby="ss-clips">
              <h2 id="ss-clips">Clips</h2>
              <SessionClips site={site} session={s} signalTimes={Object.fromEntries(events.filter((e) => e.type === 'signal').map((e) => [e.id, Date.parse(e.occurred_at)]))} />
            </section>
            <section class="card" aria-labelledby="ss-timeline">
              <h2 id="ss-timeline">Timeline</h2>
              <ol class="visits">
                {list.map((v, i) => (
                  <li key={i} class="visit">
                    <div class="visit-head"><a href={href('page', { path: v.page })}><code>{v.page}</code></a> <span class="muted">· <Time iso={v.at} short /> · {v.ms != null ? duration(v.ms) : 'time unknown'}</span></div>
                    {v.events.length > 0 && <ul class="events">{v.events.map((e) => <EventLine key={e.id} e={e} />)}</ul>}
                  </li>
                ))}
              </ol>
            </section>
          </>
        );
      }}
    </Async>
  );
}


const SIGNAL_TYPES = ['rage_click', 'dead_click', 'disabled_element_attempt', 'error_encounter', 'form_validation_loop', 'form_friction', 'u_turn_navigation', 'query_thrashing'];

/** The search (GET /v1/query/sessions) with its filters in the address: links from issues, pages and funnel steps land here pre-filtered. */
function SessionList({ site, query }: { site: string; query: URLSearchParams }) {
  const f = sessionFilters(query);
  const set = (change: Partial<Record<keyof SessionFilters, string | number>>) => navigate(href('sessions', {
    page: f.page, signal_type: f.signal_type, issue_id: f.issue_id, device: f.device, browser: f.browser, converted: f.converted,
    min_friction: f.min_friction, sort: f.sort === 'friction' ? '' : f.sort, range: f.range === '7d' ? '' : f.range, offset: '', ...change,
  }));
  const [lookup, setLookup] = useState('');
  const [pageInput, setPageInput] = useState(f.page);
  const list = useApi(() => api.get<SessionSearchList>('/query/sessions', { site_id: site, ...sessionSearchQuery(f) }),
    [site, f.page, f.signal_type, f.issue_id, f.device, f.browser, f.converted, f.min_friction, f.sort, f.range, f.offset]);
  const valid = /^[0-9a-f]{32}$/.test(lookup.trim());
  return (
    <>
      <h1>Sessions</h1>
      <form class="filters" aria-label="Filter and sort sessions" onSubmit={(e) => { e.preventDefault(); set({ page: pageInput.trim() }); }}>
        <label class="inline"><span>Page</span>
          <input id="sessions-page" placeholder="/checkout*" value={pageInput} maxLength={512} onInput={(e) => setPageInput(e.currentTarget.value)} onBlur={() => { if (pageInput.trim() !== f.page) set({ page: pageInput.trim() }); }} />
        </label>
        <label class="inline"><span>Signal</span>
          <select id="sessions-signal" value={f.signal_type} onChange={(e) => set({ signal_type: e.currentTarget.value })}>
            <option value="">Any signal</option>
            {[...new Set([...SIGNAL_TYPES, ...(f.signal_type ? [f.signal_type] : [])])].map((t) => <option key={t} value={t}>{signalStyle(t).label}</option>)}
          </select>
        </label>
        <label class="inline"><span>Device</span>
          <select id="sessions-device" value={f.device} onChange={(e) => set({ device: e.currentTarget.value })}>
            <option value="">Any device</option>{DEVICE_CLASSES.map((d) => <option key={d} value={d}>{VIEWPORTS[d].name}</option>)}
          </select>
        </label>
        <label class="inline"><span>Converted</span>
          <select id="sessions-converted" value={f.converted} onChange={(e) => set({ converted: e.currentTarget.value })}>
            <option value="">Either</option><option value="true">Converted</option><option value="false">Did not convert</option>
          </select>
        </label>
        <label class="inline"><span>Friction at least</span>
          <input id="sessions-min-friction" type="number" min={0} step="any" inputMode="decimal" value={f.min_friction} onChange={(e) => set({ min_friction: e.currentTarget.value })} />
        </label>
        <RangePicker range={f.range} onChange={(r) => set({ range: r === '7d' ? '' : r })} />
        <label class="inline"><span>Sort by</span>
          <select id="sessions-sort" value={f.sort} onChange={(e) => set({ sort: e.currentTarget.value === 'friction' ? '' : e.currentTarget.value })}>
            {Object.entries(SESSION_SORTS).map(([v, text]) => <option key={v} value={v}>{text}</option>)}
          </select>
        </label>
      </form>
      {(f.issue_id || f.browser) && (
        <p class="small">
          {f.issue_id && <>Sessions that met <a href={href('issues', f.issue_id)}>this issue</a>. </>}
          {f.browser && <>In {f.browser}. </>}
          <button type="button" class="link" onClick={() => set({ issue_id: '', browser: '' })}>Show all sessions</button>
        </p>
      )}
      <Async load={list} what="sessions">
        {(l) => l.sessions.length === 0 ? <Empty>No session matches these filters in this period.</Empty> : (
          <>
            <p class="muted small" role="status">{num(l.total)}{l.total_capped ? '+' : ''} session{l.total === 1 ? '' : 's'}, {SESSION_SORTS[f.sort].toLowerCase()} first; showing {num(l.offset + 1)} to {num(l.offset + l.sessions.length)}.</p>
            <div class="table-scroll">
              <table class="session-search">
                <thead><tr><th scope="col">Session</th><th scope="col">Started</th><th scope="col" class="num">Duration</th><th scope="col" class="num">Friction</th><th scope="col">Signals</th><th scope="col">Device</th><th scope="col">Converted</th></tr></thead>
                <tbody>
                  {l.sessions.map((row) => (
                    <tr key={row.session_id} data-session={row.session_id}>
                      <th scope="row"><a href={href('sessions', row.session_id)}>{row.summary}</a><div class="muted small"><code>{row.session_id.slice(0, 12)}…</code> · {num(row.page_count)} page{row.page_count === 1 ? '' : 's'}</div></th>
                      <td><Time iso={row.started_at} short /></td>
                      <td class="num">{duration(row.duration_ms)}</td>
                      <td class="num">{num(row.friction_weight, 1)}</td>
                      <td><div class="chips">{Object.entries(row.signals).sort((a, b) => b[1] - a[1]).slice(0, 3).map(([t, n]) => <SignalChip key={t} type={t} text={`${signalStyle(t).label} ${num(n)}`} />)}</div></td>
                      <td>{row.device ?? '–'}{row.browser ? ` · ${row.browser}` : ''}</td>
                      <td>{row.converted ? 'yes' : 'no'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <nav class="pager" aria-label="Pages of sessions">
              <button type="button" disabled={l.offset === 0} onClick={() => set({ offset: Math.max(0, l.offset - SESSIONS_PAGE_SIZE) || '' })}>Previous</button>
              <button type="button" disabled={l.total_capped ? l.sessions.length < l.limit : l.offset + l.sessions.length >= l.total} onClick={() => set({ offset: l.offset + SESSIONS_PAGE_SIZE })}>Next</button>
            </nav>
          </>
        )}
      </Async>
      <form class="row-form" onSubmit={(e) => { e.preventDefault(); if (valid) navigate(href('sessions', lookup.trim())); }}>
        <label for="sid">Open a session by id</label>
        <input id="sid" value={lookup} placeholder="32 hexadecimal characters" onInput={(e) => setLookup(e.currentTarget.value)} />
        <button type="submit" disabled={!valid}>Open</button>
      </form>
    </>
  );
}

export function SessionsScreen({ site, id, query }: { site: string; id: string | null; query: URLSearchParams }) {
  return (
    <div class="screen sessions">
      {id ? <><p class="crumbs"><a href={href('sessions')}>Sessions</a> › Session</p><SessionView site={site} id={id} /></> : <SessionList site={site} query={query} />}
    </div>
  );
}
