// Flows' edges are counted in the database (journey-sessions.ts flowEdgesOf); this holds them to
// the definition, walked here in JavaScript: each session's pageviews in order of time then id,
// every consecutive pair an edge (a reload goes to itself), edges by transitions, sessions, page.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { flowEdgesOf } from '../src/features/journeys/journey-sessions.ts';
import { compareFlowEdges, type FlowEdge } from '../src/features/journeys/friction.ts';
import { prng } from './helpers/fuzzer.ts';
import { createTestStore, eachDialect, type TestStore } from './helpers/harness.ts';

const SITE = '01900000-0000-7000-8000-000000000001';
const OTHER_SITE = '01900000-0000-7000-8000-000000000002';
const PAGES = ['/', '/cart', '/checkout', '/Checkout', '/search', '/ürün', '/a-b', '/ab'];


interface View { id: string; sid: string; page: string; at: number; type: string; site: string }

function reference(views: View[], sids: string[], maxEdges: number): FlowEdge[] {
  const edges = new Map<string, { from: string; to: string; transitions: number; sessions: Set<string> }>();
  for (const sid of sids) {
    const mine = views.filter((v) => v.sid === sid && v.site === SITE && v.type === 'pageview')
      .sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    for (let i = 0; i + 1 < mine.length; i++) {
      const key = `${mine[i].page}\u0000${mine[i + 1].page}`;
      const edge = edges.get(key) ?? { from: mine[i].page, to: mine[i + 1].page, transitions: 0, sessions: new Set<string>() };
      edge.transitions++;
      edge.sessions.add(sid);
      edges.set(key, edge);
    }
  }
  return [...edges.values()].map((e) => ({ from: e.from, to: e.to, transitions: e.transitions, sessions: e.sessions.size }))
    .sort(compareFlowEdges).slice(0, maxEdges);
}

eachDialect('flows counted in the database', ({ name }) => {
  let test: TestStore;
  const views: View[] = [];
  const sids = Array.from({ length: 60 }, (_, i) => i.toString(16).padStart(32, '0'));
  beforeAll(async () => {
    test = await createTestStore(name);
    const random = prng(17).next;
    let n = 0;
    for (const sid of sids) {
      const count = Math.floor(random() * 7);
      for (let i = 0; i < count; i++) {
        // Few distinct times, so pageviews of a session often tie and the id decides.
        const at = 1_000_000 + Math.floor(random() * 4) * 1000;
        const id = `0190${(n++).toString(16).padStart(4, '0')}-0000-7000-8000-${Math.floor(random() * 1e12).toString(16).padStart(12, '0')}`;
        views.push({ id, sid, page: PAGES[Math.floor(random() * PAGES.length)], at, type: random() < 0.15 ? 'track' : 'pageview', site: random() < 0.1 ? OTHER_SITE : SITE });
      }
    }
    await test.store.db.insertInto('events').values(views.map((v) => ({
      id: v.id, site_id: v.site, sid: v.sid, visitor_id: null, type: v.type, page: v.page, occurred_at: v.at, client_ts: null,
      received_at: v.at, dedupe_key: v.id, name: v.type === 'track' ? 'x' : null, signal_type: null, element: null, label: null,
      props: null, referrer_page: null, environment: 'production',
    }))).execute();
  });
  afterAll(async () => { await test.drop(); });

  it('equals the pairs of consecutive pageviews walked in JavaScript, for every cap and subset of sessions', async () => {
    const expected = reference(views, sids, 500);
    expect(expected.length).toBeGreaterThan(20);
    expect(await flowEdgesOf(test.store.db, SITE, sids, 500)).toEqual(expected);
    expect(await flowEdgesOf(test.store.db, SITE, sids, 5)).toEqual(expected.slice(0, 5));
    const some = sids.filter((_, i) => i % 3 === 0);
    expect(await flowEdgesOf(test.store.db, SITE, some, 500)).toEqual(reference(views, some, 500));
    expect(await flowEdgesOf(test.store.db, SITE, [], 500)).toEqual([]);
  });
});
