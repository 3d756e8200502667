// The friction journey map: the edges as a layered graph (width by friction weight) with the
// ranked list beside it, filtered by signal type, device class and period.
import { useState } from 'preact/hooks';
import { api } from '../state/api.ts';
import { href, navigate } from '../state/router.ts';
import type { Journeys } from '../api/types.ts';
import { Async, Empty, useApi } from '../components/async.tsx';
import { SignalChip, Time } from '../components/bits.tsx';
import { DRAWN_EDGES, frictionWeight, JourneyMap } from '../components/journey-map.tsx';
import { asDevice, asRange, DevicePicker, rangeQuery, RangePicker } from '../components/filters.tsx';
import { num } from '../lib/format.ts';
import { signalStyle } from '../lib/signal-style.ts';

const EDGE_SIGNALS = ['rage_click', 'dead_click', 'disabled_element_attempt', 'error_encounter', 'form_validation_loop', 'form_friction', 'u_turn_navigation'];

export function JourneysScreen({ site, query }: { site: string; query: URLSearchParams }) {
  const device = query.get('device') ? asDevice(query.get('device')) : null;
  const range = asRange(query.get('range'));
  const signal = query.get('signal') ?? '';
  const set = (change: Record<string, string | null>) => navigate(href('journeys', { device, range, signal, ...change }));
  const [active, setActive] = useState<number | null>(null);
  const journeys = useApi(() => api.get<Journeys>('/query/journeys/friction', {
    site_id: site, signal_type: signal || undefined, device: device ?? undefined, ...rangeQuery(range),
  }), [site, signal, device, range]);

  return (
    <div class="screen journeys">
      <h1>Friction journeys</h1>
      <p class="muted">Where journeys between pages carried friction, in the chosen period. An edge's <strong>friction weight</strong> is the sum of signal weight × confidence over the friction signals on the two pages either side of each step from one to the other (by default a rage click weighs 25, a dead click 12), counted in friction points: wider edges carry more.</p>
      <div class="filters">
        <label class="inline">
          <span>Signal</span>
          <select value={signal} onChange={(e) => set({ signal: e.currentTarget.value })}>
            <option value="">All signals</option>
            {EDGE_SIGNALS.map((s) => <option key={s} value={s}>{signalStyle(s).label}</option>)}
          </select>
        </label>
        <DevicePicker device={device} onChange={(d) => set({ device: d })} onAll={() => set({ device: null })} />
        <RangePicker range={range} onChange={(r) => set({ range: r })} />
      </div>
      <Async load={journeys} what="the journey map">
        {(j) => j.edges.length === 0 ? <Empty>No journey between pages carried enough friction in this selection.</Empty> : (
          <div class="journey-layout">
            <section class="card map" aria-labelledby="jr-map">
              <h2 id="jr-map">Map</h2>
              {j.edges.length > DRAWN_EDGES && <p class="muted small">The {DRAWN_EDGES} heaviest of {num(j.edges.length)} edges; the list has them all.</p>}
              <JourneyMap edges={j.edges} active={active} />
            </section>
            <section class="card ranked" aria-labelledby="jr-list">
              <h2 id="jr-list">Ranked by friction</h2>
              <ol class="edge-list">
                {j.edges.map((e, i) => (
                  <li key={`${e.from}>${e.to}`} class={active === i ? 'active' : undefined} onMouseEnter={() => setActive(i)} onMouseLeave={() => setActive(null)}>
                    <button type="button" class="link" aria-pressed={active === i} onClick={() => setActive(active === i ? null : i)} onFocus={() => setActive(i)}>
                      <code>{e.from}</code> → <code>{e.to}</code>
                    </button>
                    <div class="small"><span title="Friction weight: the sum of signal weight × confidence">{frictionWeight(e.friction_weight)}</span> · {num(e.sessions)} session{e.sessions === 1 ? '' : 's'}</div>
                    <div class="chips">{Object.entries(e.signals).sort((a, b) => b[1] - a[1]).slice(0, 3).map(([t, n]) => <SignalChip key={t} type={t} text={`${signalStyle(t).label} ${num(n)}`} />)}</div>
                    {e.examples.length > 0 && (
                      <details>
                        <summary>Examples</summary>
                        <ul class="plain-list">
                          {e.examples.map((x, k) => <li key={k}><Time iso={x.occurred_at} short /> · {signalStyle(x.signal_type).label} on <code>{x.element_selector}</code> · <a href={href('sessions', x.session_id)}>session</a></li>)}
                        </ul>
                      </details>
                    )}
                  </li>
                ))}
              </ol>
            </section>
          </div>
        )}
      </Async>
    </div>
  );
}
