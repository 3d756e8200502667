// Sessions: the latest sessions (from the raw sessions table), and one session as a timeline:
// the narrative, each page with the time spent on it, each signal as a labelled chip.
import { useState } from 'preact/hooks';
import { api } from '../state/api.ts';
import { href, navigate } from '../state/router.ts';
import type { SessionDetail, SessionEvent } from '../state/types.ts';
import { Async, Empty, useApi } from '../components/async.tsx';
import { SignalChip, Time } from '../components/bits.tsx';
import { duration, num, words } from '../lib/format.ts';
import { signalStyle } from '../lib/signal-style.ts';
import { visits } from '../lib/visits.ts';

interface SessionRow { sid: string; last_seen_at: string; first_seen_at: string; entry_page: string; page_count: number; signal_count: number; device_type: string | null; converted: boolean }

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

function SessionList({ site }: { site: string }) {
  const [withSignals, setWithSignals] = useState(true);
  const [lookup, setLookup] = useState('');
  const rows = useApi(() => api.get<{ rows: SessionRow[] }>('/query/raw', { site_id: site, table: 'sessions', sort: 'last_seen_at', order: 'desc', limit: 200 }), [site]);
  const valid = /^[0-9a-f]{32}$/.test(lookup.trim());
  return (
    <>
      <h1>Sessions</h1>
      <form class="row-form" onSubmit={(e) => { e.preventDefault(); if (valid) navigate(href('sessions', lookup.trim())); }}>
        <label for="sid">Open a session by id</label>
        <input id="sid" value={lookup} placeholder="32 hexadecimal characters" onInput={(e) => setLookup(e.currentTarget.value)} />
        <button type="submit" disabled={!valid}>Open</button>
      </form>
      <label class="inline check"><input type="checkbox" checked={withSignals} onChange={(e) => setWithSignals(e.currentTarget.checked)} /> Only sessions with friction</label>
      <Async load={rows} what="sessions">
        {(r) => {
          const shown = r.rows.filter((s) => !withSignals || s.signal_count > 0);
          return shown.length === 0 ? <Empty>No sessions yet.</Empty> : (
            <div class="table-scroll">
              <table>
                <caption>The latest {num(r.rows.length)} sessions{withSignals ? ', those with friction' : ''}</caption>
                <thead><tr><th scope="col">Session</th><th scope="col">Last seen</th><th scope="col">Entered on</th><th scope="col" class="num">Pages</th><th scope="col" class="num">Signals</th><th scope="col">Device</th></tr></thead>
                <tbody>
                  {shown.map((s) => (
                    <tr key={s.sid}>
                      <th scope="row"><a href={href('sessions', s.sid)}><code>{s.sid.slice(0, 12)}…</code></a></th>
                      <td><Time iso={s.last_seen_at} short /></td>
                      <td><code>{s.entry_page}</code></td>
                      <td class="num">{num(s.page_count)}</td>
                      <td class="num">{num(s.signal_count)}</td>
                      <td>{s.device_type ?? '–'}{s.converted ? ' · converted' : ''}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          );
        }}
      </Async>
    </>
  );
}

export function SessionsScreen({ site, id }: { site: string; id: string | null }) {
  return (
    <div class="screen sessions">
      {id ? <><p class="crumbs"><a href={href('sessions')}>Sessions</a> › Session</p><SessionView site={site} id={id} /></> : <SessionList site={site} />}
    </div>
  );
}
