// Sessions' paths (sessions.path, migration 0022) and the funnel's cap, on both dialects: ingest
// keeps each path as the migration's backfill builds it from the events (across batches, late
// events and ties); a funnel answers the same from paths as from the events; the entrants are
// the most recent sessions up to the cap, `sampled` beyond it; retention clears the path of a
// session whose first events it deleted; the migration fills paths and leaves overlong ones NULL.
import { Migrator, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { entrantSessionIds } from '../src/features/funnels/funnel-sessions.ts';
import { purgeExpiredRawData } from '../src/jobs/retention.ts';
import { migrateToLatest, migrationsThrough } from '../src/store/migrate.ts';
import { backfillSessionPaths } from '../src/store/migrations/0022-session-path.ts';
import { extendPath, MAX_PATH_ENTRIES, type PathEntry } from '../src/store/session-path.ts';
import { emptyStore } from './helpers/empty-store.ts';
import { eachDialect, useHarness, type Harness } from './helpers/harness.ts';
import { DAY, hex32, MIN, queryOk, sendImport, type Ev, type Org } from './helpers/ingest-kit.ts';

const view = (page: string, ts: number): Ev => ({ type: 'pageview', ts, page });
const track = (name: string, ts: number, page: string): Ev => ({ type: 'track', ts, page, name });
const signal = (signal_type: string, ts: number, page: string): Ev => ({ type: 'signal', ts, page, signal_type, element: 'button.x', confidence: 1 });

async function pathOf(h: Harness, siteId: string, sid: string): Promise<PathEntry[] | null> {
  const row = await h.store.db.selectFrom('sessions').select('path').where('site_id', '=', siteId).where('sid', '=', sid).executeTakeFirstOrThrow();
  return row.path === null ? null : JSON.parse(row.path);
}

describe('extendPath', () => {
  it('merges late entries in time order, the stored ones first at equal times', () => {
    const stored = JSON.stringify([[10, 'p', '/a'], [20, 's', 'rage_click', '/a']]);
    expect(JSON.parse(extendPath(stored, [[5, 'p', '/x'], [20, 'p', '/b']])!)).toEqual([[5, 'p', '/x'], [10, 'p', '/a'], [20, 's', 'rage_click', '/a'], [20, 'p', '/b']]);
    expect(extendPath(stored, [])).toBe(stored);
  });
  it('is NULL past the cap and stays NULL', () => {
    const full = JSON.stringify(Array.from({ length: MAX_PATH_ENTRIES }, (_, i) => [i, 'p', '/a']));
    expect(extendPath(full, [])).toBe(full);
    expect(extendPath(full, [[MAX_PATH_ENTRIES, 'p', '/a']])).toBeNull();
    expect(extendPath(null, [[1, 'p', '/a']])).toBeNull();
  });
});

eachDialect('funnel paths', ({ name }) => {
  const h = useHarness(name, { raisedLimits: true });
  const funnel = (org: Org, params: Record<string, string>) => queryOk(h, org.keys.secret, `/v1/query/funnel?${new URLSearchParams(params)}`);

  it('ingest keeps each path as the backfill builds it from the events: batches, late events, ties', async () => {
    const org = await h.org('Paths');
    const T = h.clock.now() - 3 * 60 * MIN;
    const a = hex32();
    await sendImport(h, org, a, [view('/cart', T + MIN), signal('rage_click', T + 2 * MIN, '/cart'), track('purchase', T + 3 * MIN, '/checkout')]);
    // A late batch: a pageview before everything stored, and one at the same instant as the stored signal.
    await sendImport(h, org, a, [view('/', T), view('/checkout', T + 2 * MIN)]);
    const b = hex32();
    // Two pageviews at the same instant (SDK ids, else they are one event): the order sent.
    await sendImport(h, org, b, [{ ...view('/x', T), id: 'a1'.repeat(8) }, { ...view('/y', T), id: 'b2'.repeat(8) }, track('signup', T + MIN, '/y')]);
    const expected: Record<string, PathEntry[]> = {
      [a]: [[T, 'p', '/'], [T + MIN, 'p', '/cart'], [T + 2 * MIN, 's', 'rage_click', '/cart'], [T + 2 * MIN, 'p', '/checkout'], [T + 3 * MIN, 'e', 'purchase', '/checkout']],
      [b]: [[T, 'p', '/x'], [T, 'p', '/y'], [T + MIN, 'e', 'signup', '/y']],
    };
    for (const sid of [a, b]) expect(await pathOf(h, org.site_id, sid)).toEqual(expected[sid]);
    await h.store.db.updateTable('sessions').set({ path: null }).where('site_id', '=', org.site_id).execute();
    await backfillSessionPaths(h.store.db, sql`site_id = ${org.site_id}`);
    for (const sid of [a, b]) expect(await pathOf(h, org.site_id, sid)).toEqual(expected[sid]);
  });

  it('a funnel answers the same from the paths as from the events', async () => {
    const org = await h.org('Same');
    const T = h.clock.now() - 5 * 60 * MIN;
    const sessions: Ev[][] = [
      [view('/cart', T), view('/checkout', T + 2 * MIN), signal('rage_click', T + 3 * MIN, '/checkout'), track('purchase', T + 5 * MIN, '/checkout/complete')],
      [view('/cart', T), view('/checkout', T + 4 * MIN), signal('dead_click', T + 5 * MIN, '/checkout')],
      [view('/checkout', T), view('/cart', T + MIN), signal('rage_click', T + 2 * MIN, '/cart')],
      [view('/cart', T), view('/cart', T + MIN), view('/checkout', T + 6 * MIN), track('purchase', T + 8 * MIN, '/checkout/complete')],
      [view('/cart', T), view('/checkout', T + 10 * MIN), track('purchase', T + 61 * MIN, '/checkout/complete')],
    ];
    for (const events of sessions) await sendImport(h, org, hex32(), events);
    const params = { steps: '/cart,/checkout,purchase' };
    const fromPaths = await funnel(org, params);
    expect(fromPaths).toMatchObject({ entered: 5, completed: 2, sessions_analyzed: 5, sampled: false });
    expect(fromPaths.steps[1].friction).toMatchObject({ signals: { dead_click: 1, rage_click: 1 }, dropped_after_friction: 1 });
    await h.store.db.updateTable('sessions').set({ path: null }).where('site_id', '=', org.site_id).execute();
    expect(await funnel(org, params)).toEqual(fromPaths);
    // No session row at all (rows written past ingest): read from the events too.
    await h.store.db.deleteFrom('sessions').where('site_id', '=', org.site_id).execute();
    expect(await funnel(org, params)).toEqual(fromPaths);
  });

  it('walks the most recent entrants up to the cap and says when it sampled', async () => {
    const org = await h.org('Cap');
    const T = h.clock.now() - 10 * 60 * MIN;
    const [s1, s2, s3, s4] = [hex32(), hex32(), hex32(), hex32()];
    await sendImport(h, org, s1, [view('/cart', T)]);
    await sendImport(h, org, s2, [view('/cart', T + 60 * MIN), view('/cart', T + 61 * MIN)]);
    // s3 and s4 enter at the same instant, the latest.
    await sendImport(h, org, s3, [view('/cart', T + 120 * MIN)]);
    await sendImport(h, org, s4, [view('/cart', T + 120 * MIN), view('/checkout', T + 121 * MIN)]);
    const first = { step: '/cart', kind: 'page' as const };
    const window = { from: T - DAY, to: h.clock.now() + 1 };
    // One row per page: the keyset walks ties and repeats row by row.
    for (const pageRows of [1, 2, 2000]) {
      const three = await entrantSessionIds(h.store.db, org.site_id, first, window, 3, pageRows);
      expect(three.sampled).toBe(true);
      expect(new Set(three.sids)).toEqual(new Set([s2, s3, s4]));
      const four = await entrantSessionIds(h.store.db, org.site_id, first, window, 4, pageRows);
      expect([four.sampled, new Set(four.sids)]).toEqual([false, new Set([s1, s2, s3, s4])]);
    }
    const pattern = await entrantSessionIds(h.store.db, org.site_id, { step: '/ca*', kind: 'page' }, window, 1, 1);
    expect([pattern.sampled, pattern.sids.length]).toEqual([true, 1]);
    expect([s3, s4]).toContain(pattern.sids[0]);
    // An event step reads the track index the same way.
    await sendImport(h, org, s1, [track('signup', T + 5 * MIN, '/cart')]);
    await sendImport(h, org, s2, [track('signup', T + 65 * MIN, '/cart')]);
    const byEvent = await entrantSessionIds(h.store.db, org.site_id, { step: 'signup', kind: 'event' }, window, 1, 1);
    expect(byEvent).toEqual({ sids: [s2], sampled: true });
    expect(await entrantSessionIds(h.store.db, org.site_id, { step: 'signup', kind: 'event' }, window, 2, 1)).toEqual({ sids: [s2, s1], sampled: false });
  });

  it('retention clears the path of a session whose first events it deleted; the funnel reads what remains', async () => {
    const org = await h.org('Retention');
    const now = h.clock.now();
    const cutoff = now - 30 * DAY;
    const [cut, kept] = [hex32(), hex32()];
    // Entered /a before the cutoff and again after it, /b 15 minutes after the second.
    await sendImport(h, org, cut, [view('/a', cutoff - 10 * MIN), view('/a', cutoff + 5 * MIN), view('/b', cutoff + 20 * MIN)]);
    await sendImport(h, org, kept, [view('/a', cutoff + DAY), view('/b', cutoff + DAY + 5 * MIN)]);
    await purgeExpiredRawData(h.store, now, 30);
    expect(await pathOf(h, org.site_id, cut)).toBeNull();
    expect(await pathOf(h, org.site_id, kept)).toEqual([[cutoff + DAY, 'p', '/a'], [cutoff + DAY + 5 * MIN, 'p', '/b']]);
    const d = await funnel(org, { steps: '/a,/b', from: new Date(now - 40 * DAY).toISOString() });
    // From the deleted /a the walk would take 30 minutes to /b; from the events left, 15.
    expect(d).toMatchObject({ entered: 2, completed: 2, sampled: false });
    expect(d.steps[0].median_ms_to_next).toBe(Math.round((15 * MIN + 5 * MIN) / 2));
  });
});

eachDialect('migration 0022-session-path', ({ name }) => {
  it('fills every session path from its events and signals, and leaves one over the cap NULL', async () => {
    const { store, schema, drop } = await emptyStore(name);
    try {
      const old = new Migrator({
        db: store.db, provider: { getMigrations: async () => migrationsThrough('0019-funnels') },
        migrationTableName: 'mallard_migrations', migrationLockTableName: 'mallard_migrations_lock', migrationTableSchema: schema,
      });
      expect((await old.migrateToLatest()).error).toBeUndefined();
      const db = store.db as any;
      const at = Date.now() - DAY;
      const session = (id: string, sid: string, eventCount: number) => ({
        id, site_id: 's1', sid, visitor_id: null, user_ref: null, environment: 'production', first_seen_at: at, last_seen_at: at, entry_page: '/',
        exit_page: '/', pages: '[]', page_count: 0, event_count: eventCount, signal_count: 0, signal_counts: '{}', device_type: null, browser: null,
        os: null, viewport_bucket: null, app_version: null, referrer_host: null, converted: 0,
      });
      const event = (id: string, sid: string, type: string, page: string, ms: number, extra: Record<string, unknown> = {}) => ({
        id, site_id: 's1', sid, visitor_id: null, type, page, occurred_at: ms, client_ts: ms, received_at: ms, dedupe_key: id,
        name: null, signal_type: null, element: null, label: null, props: null, referrer_page: null, environment: 'production', ...extra,
      });
      await db.insertInto('sessions').values([session('1', 'a', 4), session('2', 'b', 0), session('3', 'c', MAX_PATH_ENTRIES + 1)]).execute();
      await db.insertInto('events').values([
        event('e2', 'a', 'pageview', '/cart', at + MIN), event('e1', 'a', 'pageview', '/', at),
        event('e3', 'a', 'signal', '/cart', at + 2 * MIN, { signal_type: 'rage_click' }),
        event('e4', 'a', 'track', '/cart', at + 2 * MIN, { name: 'add_to_cart' }),
        event('e5', 'a', 'identify', '/cart', at + 3 * MIN),
        ...Array.from({ length: MAX_PATH_ENTRIES + 1 }, (_, i) => event(`c${String(i).padStart(5, '0')}`, 'c', 'pageview', '/p', at + i)),
      ]).execute();
      await db.insertInto('signals').values({
        id: 'g1', site_id: 's1', event_id: 'e3', sid: 'a', visitor_id: null, signal_type: 'rage_click', page: '/cart', element: 'button', label: null,
        confidence: 1, occurred_at: at + 2 * MIN, rx: null, ry: null, vx: null, vy: null, environment: 'production',
      }).execute();
      expect(await migrateToLatest(store.db)).toContain('0022-session-path');
      const rows = await db.selectFrom('sessions').select(['sid', 'path']).orderBy('sid').execute();
      expect(rows.map((r: any) => [r.sid, r.path === null ? null : JSON.parse(r.path)])).toEqual([
        // The signal (event e3) before the track event (e4) at the same instant: event id order.
        ['a', [[at, 'p', '/'], [at + MIN, 'p', '/cart'], [at + 2 * MIN, 's', 'rage_click', '/cart'], [at + 2 * MIN, 'e', 'add_to_cart', '/cart']]],
        ['b', []],
        ['c', null],
      ]);
    } finally {
      await drop();
    }
  });
});
