// Flows (/query/flows): where people went next from each page of their multi-page sessions, with
// each next page's share; a chosen page also shows where people came from. Filtered by device
// class and period, kept in the address.
import { api } from '../state/api.ts';
import { href, navigate } from '../state/router.ts';
import { Async, Empty, useApi } from '../components/async.tsx';
import { Bar } from '../components/bar.tsx';
import { asDevice, asRange, DevicePicker, rangeQuery, RangePicker } from '../components/filters.tsx';
import { num, percent } from '../lib/format.ts';
import { nextPages, previousPages, type PageFlows } from '../lib/flows.ts';
import type { Flows } from '../api/types.ts';


/** Most edges asked for: enough for every page of a site with a few hundred paths. */
const EDGE_LIMIT = 500;

function Steps({ flows, direction }: { flows: PageFlows; direction: 'next' | 'previous' }) {
  const verb = direction === 'next' ? 'went on to' : 'came from';
  return (
    <div class="table-scroll">
      <table class="flow-steps">
        <caption class="sr-only">{`Pages people ${verb} from ${flows.page}`}</caption>
        <thead><tr><th scope="col">{direction === 'next' ? 'Next page' : 'Previous page'}</th><th scope="col">Share</th><th scope="col">Moves</th><th scope="col">Sessions</th></tr></thead>
        <tbody>
          {flows.steps.map((s) => (
            <tr key={s.page}>
              <th scope="row"><a href={href('flows', { page: s.page })}><code>{s.page}</code></a></th>
              <td class="share"><Bar value={s.share} max={1} label={`${percent(s.share)} of moves`} /> {percent(s.share)}</td>
              <td>{num(s.transitions)}</td>
              <td>{num(s.sessions)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function FlowsScreen({ site, query }: { site: string; query: URLSearchParams }) {
  const device = query.get('device') ? asDevice(query.get('device')) : null;
  const range = asRange(query.get('range'));
  const focus = query.get('page');
  const set = (change: Record<string, string | null>) => navigate(href('flows', { device, range, page: focus, ...change }));
  const flows = useApi(() => api.get<Flows>('/query/flows', { site_id: site, device: device ?? undefined, limit: EDGE_LIMIT, ...rangeQuery(range) }), [site, device, range]);

  return (
    <div class="screen flows">
      <h1>Flows</h1>
      <p class="muted">Where people went next from each page, over the most recent multi-page sessions of the period. Pick a page to see where people came from too; the Journeys screen shows which moves carried friction.</p>
      <div class="filters">
        <DevicePicker device={device} onChange={(d) => set({ device: d })} onAll={() => set({ device: null })} />
        <RangePicker range={range} onChange={(r) => set({ range: r })} />
        {focus && <button type="button" onClick={() => set({ page: null })}>All pages</button>}
      </div>
      <Async load={flows} what="the flows">
        {(f) => {
          if (f.edges.length === 0) return <Empty>No session in this selection moved between pages.</Empty>;
          const next = nextPages(f.edges);
          const summary = <p class="small muted">From {num(f.sessions_analyzed)} sessions with more than one page{f.edges.length >= EDGE_LIMIT ? `; the ${EDGE_LIMIT} busiest moves` : ''}.</p>;
          if (focus) {
            const out = next.find((p) => p.page === focus);
            const into = previousPages(f.edges).find((p) => p.page === focus);
            return (
              <>
                {summary}
                <div class="flow-focus">
                  <section class="card" aria-labelledby="fl-into">
                    <h2 id="fl-into">Into <code>{focus}</code></h2>
                    {into ? <Steps flows={into} direction="previous" /> : <Empty>Nobody came to this page from another in this selection.</Empty>}
                  </section>
                  <section class="card" aria-labelledby="fl-out">
                    <h2 id="fl-out">Out of <code>{focus}</code></h2>
                    {out ? <Steps flows={out} direction="next" /> : <Empty>Nobody went on from this page in this selection.</Empty>}
                  </section>
                </div>
                <p><a href={href('page', { path: focus })}>Open the page screen for {focus}</a></p>
              </>
            );
          }
          return (
            <>
              {summary}
              {next.map((p) => (
                <section key={p.page} class="card flow-page" aria-label={`After ${p.page}`}>
                  <h2><a href={href('flows', { device, range, page: p.page })}><code>{p.page}</code></a> <span class="small muted">{num(p.transitions)} moves on</span></h2>
                  <Steps flows={p} direction="next" />
                </section>
              ))}
            </>
          );
        }}
      </Async>
    </div>
  );
}
