// Row counts (migration 0010, store/row-counts.ts) against the rows themselves: after every
// kind of write (ingest with duplicates, pipeline cycles run twice, a deploy, alerts written and
// deleted, erasure, retention, a site purge, the fold) each site's count of each table served
// by /query/raw equals count(*), and so does the route's `total`. The migration counts rows
// stored before it. On PostgreSQL, writers on separate connections never wait for each other
// on a count, whatever order they write tables in, and a fold never waits for a writer.
import { sql, type Kysely, type Transaction } from 'kysely';
import { describe, expect, it } from 'vitest';
import { eraseSessions } from '../src/features/privacy/service.ts';
import { purgeDeletedSites } from '../src/jobs/purge-sites.ts';
import type { PreparedEvent } from '../src/ingest/prepare.ts';
import { storeBatches } from '../src/ingest/store-batch.ts';
import { purgeExpiredRawData } from '../src/jobs/retention.ts';
import { openStore } from '../src/store/db.ts';
import { up as countRows } from '../src/store/migrations/0010-row-counts.ts';
import { COUNTED_TABLES, foldRowCounts, rowCount, type CountedTable } from '../src/store/row-counts.ts';
import { RAW_TABLE_NAMES } from '../src/features/raw/tables.ts';
import type { Database } from '../src/store/tables.ts';
import { eachDialect, useHarness, type Harness, type Org } from './helpers/harness.ts';
import { DIALECTS } from './helpers/services.ts';
import { DAY, HOUR, MIN, cycle, freshStart, ok, sendVisits, vidOf, type Visit } from './helpers/traffic.ts';

const TABLES = [...COUNTED_TABLES] as CountedTable[];

let rowNumber = 0;
/** `n` events of the site written straight into the table: counted by triggers on PostgreSQL, and before migration 0010 by its backfill. */
async function insertEvents(db: Kysely<Database>, siteId: string, n: number, at: number) {
  const rows = Array.from({ length: n }, () => {
    const k = (++rowNumber).toString(16).padStart(12, '0');
    return {
      id: `0190c000-0000-7000-8000-${k}`, site_id: siteId, sid: 'f'.repeat(20) + k, visitor_id: null, type: 'pageview', page: '/',
      occurred_at: at, client_ts: at, received_at: at, dedupe_key: k, name: null, signal_type: null, element: null, label: null,
      props: null, referrer_page: null, environment: 'production',
    };
  });
  await db.insertInto('events').values(rows).execute();
  return rows.map((r) => r.id);
}

/** A session of `pageviews` pageviews and `signals` signals at `at`, through ingest's storage step (what counts them on SQLite). */
async function stored(h: Harness, siteId: string, at: number, pageviews: number, signals: number) {
  const k = (++rowNumber).toString(16).padStart(12, '0');
  const event = (i: number, signal: boolean): PreparedEvent => ({
    index: i, dedupeKey: `${k}-${i}`, type: signal ? 'signal' : 'pageview', page: '/', occurredAt: at + i, clientTs: at + i, name: null,
    signalType: signal ? 'rage_click' : null, element: signal ? 'button.pay' : null, label: null, props: null, referrerPage: null,
    referrerHost: null, userRef: null, signal: signal ? { confidence: 1, rx: null, ry: null, vx: null, vy: null } : null,
  });
  const events = [...Array.from({ length: pageviews }, (_, i) => event(i, false)), ...Array.from({ length: signals }, (_, i) => event(pageviews + i, true))];
  const meta = { siteId, sid: 'd'.repeat(20) + k, visitorId: null, environment: 'production', userAgent: null, viewportWidth: null, appVersion: null, conversionEvents: new Set<string>() };
  await storeBatches(h.store.db, h.store.dialect, [{ meta, events, now: at }]);
}

async function insertSignal(db: Kysely<Database>, siteId: string, at: number) {
  const k = (++rowNumber).toString(16).padStart(12, '0');
  await db.insertInto('signals').values({
    id: `0190c000-0000-7000-9000-${k}`, site_id: siteId, event_id: `0190c000-0000-7000-a000-${k}`, sid: 'e'.repeat(20) + k, visitor_id: null,
    signal_type: 'rage_click', page: '/', element: 'b', label: null, confidence: 1, occurred_at: at, rx: null, ry: null, vx: null, vy: null,
    environment: 'production',
  }).execute();
}

/** A promise and its resolve (Promise.withResolvers is Node 22's). */
function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => { resolve = r; });
  return { promise, resolve };
}

/** Every count of these sites equals count(*), and so does /query/raw's total. */
async function expectCountsEqualRows(h: Harness, orgs: Org[]) {
  for (const org of orgs) {
    for (const table of TABLES) {
      const { n } = await h.store.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).where('site_id', '=', org.site_id).executeTakeFirstOrThrow();
      expect(await rowCount(h.store.db, org.site_id, table), `${table} of ${org.site_id}`).toBe(Number(n));
      // Clips are counted, not served by /query/raw.
      if (!(RAW_TABLE_NAMES as string[]).includes(table)) continue;
      const raw = await ok(h, org.keys.secret, 'GET', `/v1/query/raw?table=${table}&limit=1`);
      expect(raw.total, `raw ${table}`).toBe(Number(n));
    }
  }
}

eachDialect('row counts', ({ name }) => {
  const h = useHarness(name, { raisedLimits: true });

  const someVisits = (from: number, at: number): Visit[] => Array.from({ length: 12 }, (_, i) => ({
    n: from + i, page: i % 3 === 0 ? '/cart' : '/checkout', at: at + i * MIN,
    signals: i % 2 === 0 ? [{ type: 'rage_click', element: 'button.pay' }, { type: 'dead_click', element: 'a.help' }] : [],
  }));

  it('equal count(*) after ingest, duplicates, cycles, deploys, alerts, erasure, retention, a site purge and the fold', async () => {
    const { org: a, start, prefix } = await freshStart(h);
    const b = await h.org('Counts B');
    h.clock.set(start + 2 * HOUR);
    await sendVisits(h, a, prefix, someVisits(0, start + HOUR));
    await sendVisits(h, b, prefix, someVisits(100, start + HOUR));
    await expectCountsEqualRows(h, [a, b]);

    // A retried batch stores nothing again, and must count nothing again.
    const retry = { key: a.keys.publishable, sid: `${prefix}${'0'.repeat(24)}`, url: 'https://shop.example/checkout', ts: h.clock.now(), events: [{ type: 'pageview', ts: start + HOUR, page: '/checkout' }] };
    for (let i = 0; i < 2; i++) expect((await h.app.inject({ method: 'POST', url: '/v1/ingest', payload: retry })).statusCode).toBe(202);
    await expectCountsEqualRows(h, [a, b]);

    // A cycle run twice for the same time replaces its score history (deletes, then inserts).
    for (const org of [a, b]) {
      await cycle(h, org.site_id, start + 2 * HOUR);
      await cycle(h, org.site_id, start + 2 * HOUR);
    }
    expect(await rowCount(h.store.db, a.site_id, 'page_scores')).toBeGreaterThan(0);
    expect(await rowCount(h.store.db, a.site_id, 'ux_issues')).toBeGreaterThan(0);
    await ok(h, a.jwt, 'POST', `/v1/manage/deploys?site_id=${a.site_id}`, { version: 'v2' });
    const alert = (at: number, id: string) => ({
      id, site_id: a.site_id, rule_id: null, trigger_type: 'spike', page: '/checkout', severity: 'high', status: 'fired', message: 'spike',
      score_before: 1, score_after: 2, condition_value: 2, threshold: 1, breakdown: '[]', fired_at: at, acknowledged_at: null,
      investigating_at: null, resolved_at: null, resolved_reason: null, last_notified_at: at, created_at: at, updated_at: at,
    });
    await h.store.db.insertInto('alerts').values([alert(start, '0190c000-0000-7000-b000-000000000001'), alert(start, '0190c000-0000-7000-b000-000000000002')]).execute();
    await h.store.db.deleteFrom('alerts').where('id', '=', '0190c000-0000-7000-b000-000000000001').execute();
    await expectCountsEqualRows(h, [a, b]);

    const erased = await eraseSessions(h.store.db, { siteId: a.site_id, visitorId: vidOf(prefix, 0) });
    expect(erased.events).toBeGreaterThan(0);
    await expectCountsEqualRows(h, [a, b]);

    // Rows of b written at an old time expire.
    await stored(h, b.site_id, start - 100 * DAY, 7, 2);
    await expectCountsEqualRows(h, [a, b]);
    expect(await purgeExpiredRawData(h.store, start + 2 * HOUR, 90, 3)).toBeGreaterThanOrEqual(12);
    await expectCountsEqualRows(h, [a, b]);

    await h.store.db.updateTable('sites').set({ deleted_at: h.clock.now() }).where('id', '=', b.site_id).execute();
    await purgeDeletedSites(h.store);
    expect(await h.store.db.selectFrom('row_counts').select('table_name').where('site_id', '=', b.site_id).execute()).toEqual([]);
    await expectCountsEqualRows(h, [a]);

    if (name === 'postgres') {
      expect(await foldRowCounts(h.store.db)).toBeGreaterThan(0);
      const shards = await h.store.db.selectFrom('row_counts').select('shard').distinct().where('site_id', '=', a.site_id).execute();
      expect(shards).toEqual([{ shard: 0 }]);
      await expectCountsEqualRows(h, [a]);
    }
  });

  it('the migration counts the rows stored before it', async () => {
    const org = await h.org('Counts before');
    await insertEvents(h.store.db, org.site_id, 5, h.clock.now());
    await insertSignal(h.store.db, org.site_id, h.clock.now());
    // As the store was before migration 0010: no counts, no triggers; then rows written.
    for (const table of TABLES) {
      for (const event of ['inserted', 'deleted']) await sql.raw(`drop trigger if exists ${table}_count_${event}${name === 'postgres' ? ` on ${table}` : ''}`).execute(h.store.db);
    }
    if (name === 'postgres') await sql`drop function mallard_count_inserted(); drop function mallard_count_deleted()`.execute(h.store.db);
    await h.store.db.schema.dropTable('row_counts').execute();
    await insertEvents(h.store.db, org.site_id, 4, h.clock.now());
    await h.store.db.transaction().execute((trx) => countRows(trx as unknown as Kysely<unknown>));
    await expectCountsEqualRows(h, [org]);
    await stored(h, org.site_id, h.clock.now(), 2, 1);
    await expectCountsEqualRows(h, [org]);
  });

});

// Shards exist on PostgreSQL only (SQLite has one writer at a time).
describe.skipIf(DIALECTS.find((d) => d.name === 'postgres')!.skip)('row counts on postgres, written concurrently', () => {
  const h = useHarness('postgres', { raisedLimits: true });

  it('writers on other connections never wait for one another on a count, and the fold never waits for a writer', async () => {
    const org = await h.org('Counts concurrent');
    const [one, two] = [openStore(h.storeUrl, { poolSize: 1 }), openStore(h.storeUrl, { poolSize: 1 })];
    /** A transaction that runs `steps` in turn, each when the test lets it go, and commits when `commit` is called. */
    function stepped(db: Kysely<Database>, steps: ((trx: Transaction<Database>) => Promise<unknown>)[]) {
      const gates = [...steps, null].map(deferred);
      const reached = steps.map(deferred);
      const done = db.transaction().execute(async (trx) => {
        for (const [i, step] of steps.entries()) {
          await gates[i].promise;
          await step(trx);
          reached[i].resolve();
        }
        await gates[steps.length].promise;
      });
      return {
        go: async (i: number) => { gates[i].resolve(); await within(reached[i].promise, `step ${i}`); },
        commit: () => { gates[steps.length].resolve(); return within(done, 'the commit'); },
      };
    }
    /** Fails instead of hanging when a lock wait (or a deadlock) holds `promise`. */
    const within = <T>(promise: Promise<T>, what: string) => Promise.race([
      promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what} waited for a lock`)), 10_000)),
    ]);
    try {
      const at = h.clock.now();
      // Each connection has count rows of its own already, which its transaction below will hold.
      for (const store of [one, two]) {
        await insertEvents(store.db, org.site_id, 1, at);
        await insertSignal(store.db, org.site_id, at);
      }
      // Opposite orders of tables: with one count row per (site, table) these two would deadlock.
      const first = stepped(one.db, [(trx) => insertEvents(trx, org.site_id, 3, at), (trx) => insertSignal(trx, org.site_id, at)]);
      const second = stepped(two.db, [(trx) => insertSignal(trx, org.site_id, at), (trx) => insertEvents(trx, org.site_id, 2, at)]);
      await first.go(0);
      await second.go(0);
      await first.go(1);
      await second.go(1);
      // Both still open, holding their count rows: the fold passes them by.
      await within(foldRowCounts(h.store.db), 'the fold');
      await Promise.all([first.commit(), second.commit()]);
      await expectCountsEqualRows(h, [org]);
      expect(await foldRowCounts(h.store.db)).toBeGreaterThan(0);
      const shards = await h.store.db.selectFrom('row_counts').select('shard').distinct().where('site_id', '=', org.site_id).execute();
      expect(shards).toEqual([{ shard: 0 }]);
      await expectCountsEqualRows(h, [org]);
    } finally {
      await one.close();
      await two.close();
    }
  });
});
