// The element rollup (store/element-rollup.ts) against raw signals: the top elements of a page
// read from the rollup plus raw edges must equal the aggregate over raw signals only
// (topElementsFromRaw, the device filter's path), for many windows, after random ingest over
// many hours, after late data into an old hour, after erasing a person and after retention.
// Every rollup row is also compared with its bucket recomputed from the signals. Both dialects;
// on SQLite ingest takes the prepared-statement path, on PostgreSQL the multi-row one.
import { beforeAll, describe, expect, it } from 'vitest';
import { storeBatches, type PendingBatch } from '../src/ingest/store-batch.ts';
import type { PreparedEvent } from '../src/ingest/prepare.ts';
import { topElements, topElementsFromRaw } from '../src/features/scores/top-elements.ts';
import { eraseSessions } from '../src/features/privacy/service.ts';
import { purgeExpiredRawData } from '../src/jobs/retention.ts';
import { up as migrateRollup } from '../src/store/migrations/0008-element-rollup.ts';
import { HOUR_MS, hourOf, withdrawSignals } from '../src/store/element-rollup.ts';
import { sql, type Kysely } from 'kysely';
import { eachDialect, useHarness, type Org } from './helpers/harness.ts';
import { prng } from './helpers/fuzzer.ts';

/** The fuzzer's seeded generator (mulberry32), so a failure replays. */
const random = (seed: number) => prng(seed).next;

const PAGES = ['/checkout', '/checkout', '/checkout', '/cart'];
// '' and null are signals on no element: never in the rollup.
const ELEMENTS = ['button.pay', 'a.help', 'input.coupon', 'div.menu > li:nth-child(2)', '', null];
const TYPES = ['rage_click', 'dead_click', 'error_click', 'thrash'];
// Case and accents: PostgreSQL's collation and JavaScript order them differently; max(label) must follow the database.
const LABELS = [null, null, 'Pay', 'pay', 'Zahlen', 'Ärger', 'apply', 'b', ''];
const HOURS = 30;

let events = 0;
function signal(pick: () => number, at: number, page?: string): PreparedEvent {
  const of = <T>(list: readonly T[]) => list[Math.floor(pick() * list.length)];
  return {
    index: 0, dedupeKey: `k${events++}`, type: 'signal', page: page ?? of(PAGES), occurredAt: at, clientTs: at, name: null,
    signalType: of(TYPES), element: of(ELEMENTS), label: of(LABELS), props: null, referrerPage: null, referrerHost: null,
    userRef: null, signal: { confidence: 1, rx: null, ry: null, vx: null, vy: null },
  };
}

const meta = (siteId: string, sid: string, visitorId: string | null) => ({
  siteId, sid, visitorId, environment: 'production', userAgent: null, viewportWidth: null, appVersion: null, conversionEvents: new Set<string>(),
});

eachDialect('element rollup', ({ name }) => {
  const h = useHarness(name);
  const pick = random(20261126);
  let org: Org;
  let now: number;
  /** Visitor ids (null: the session is the user) by session. */
  const sessions: { sid: string; visitorId: string | null }[] = [];

  async function ingest(batches: PendingBatch[]) {
    // Groups of several batches, as the group commit stores them.
    for (let i = 0; i < batches.length; i += 16) await storeBatches(h.store.db, h.store.dialect, batches.slice(i, i + 16));
  }

  /** Every rollup row equals its bucket recomputed from the signals, and no bucket is missing. */
  async function expectRollupEqualsRaw() {
    const hour = sql.raw(String(HOUR_MS));
    const raw = await sql<Record<string, unknown>>`select page, element, signal_type, coalesce(visitor_id, sid) as user_key,
        occurred_at - occurred_at % ${hour} as hour, count(*) as signals, max(label) as label
      from signals where site_id = ${org.site_id} and element <> ''
      group by page, element, signal_type, coalesce(visitor_id, sid), occurred_at - occurred_at % ${hour}`.execute(h.store.db);
    const rollup = await h.store.db.selectFrom('element_rollup').select(['page', 'element', 'signal_type', 'user_key', 'hour', 'signals', 'label'])
      .where('site_id', '=', org.site_id).execute();
    const norm = (rows: Record<string, unknown>[]) => rows.map((r) => JSON.stringify([r.page, r.hour, r.element, r.signal_type, r.user_key, Number(r.signals), r.label])).sort();
    expect(norm(rollup)).toEqual(norm(raw.rows));
  }

  /** Windows of every kind: hour-aligned or not, open-ended or not, inside one hour, beyond the data. */
  function windows() {
    const start = now - (HOURS + 2) * HOUR_MS;
    const span = (HOURS + 4) * HOUR_MS;
    const out: { since: number; until: number | null }[] = [
      { since: 0, until: null }, { since: now - 7 * 24 * HOUR_MS, until: null },
      { since: hourOf(now - 10 * HOUR_MS), until: hourOf(now - 2 * HOUR_MS) },
      { since: hourOf(now - 10 * HOUR_MS) + 1, until: hourOf(now - 10 * HOUR_MS) + HOUR_MS - 1 },
      { since: hourOf(now - 5 * HOUR_MS) - 1, until: hourOf(now - 5 * HOUR_MS) + 1 },
    ];
    for (let i = 0; i < 30; i++) {
      let since = start + Math.floor(pick() * span);
      let until: number | null = pick() < 0.25 ? null : since + Math.floor(pick() * 12 * HOUR_MS);
      if (i % 3 === 0) { since = hourOf(since); if (until !== null) until = hourOf(until) + HOUR_MS; }
      out.push({ since, until });
    }
    return out;
  }

  async function expectSameAsRaw() {
    await expectRollupEqualsRaw();
    let nonEmpty = 0;
    for (const page of ['/checkout', '/cart']) {
      for (const w of windows()) {
        const filter = { ...w, device: null };
        const raw = await topElementsFromRaw(h.store.db, org.site_id, page, filter, 1000);
        expect(await topElements(h.store.db, org.site_id, page, filter, 1000), `${page} ${JSON.stringify(w)}`).toEqual(raw);
        if (raw.length > 0) nonEmpty++;
      }
    }
    // The windows must see data, else the comparison proves nothing.
    expect(nonEmpty).toBeGreaterThan(25);
  }

  beforeAll(async () => {
    org = await h.org('Rollup');
    now = h.clock.now();
    for (let i = 0; i < 40; i++) {
      // Some sessions share a visitor (one user), some have none (the session is the user).
      const visitorId = pick() < 0.3 ? null : `v${Math.floor(pick() * 18)}`;
      sessions.push({ sid: `s${String(i).padStart(31, '0')}`, visitorId });
    }
    const batches: PendingBatch[] = [];
    for (let b = 0; b < 160; b++) {
      const s = sessions[Math.floor(pick() * sessions.length)];
      const at = now - Math.floor(pick() * HOURS * HOUR_MS);
      // A batch's events may cross an hour boundary.
      const evs = Array.from({ length: 1 + Math.floor(pick() * 25) }, () => signal(pick, at + Math.floor(pick() * 20 * 60_000)));
      batches.push({ meta: meta(org.site_id, s.sid, s.visitorId), events: evs, now });
    }
    await ingest(batches);
    // A retried batch stores nothing twice, in the rollup either.
    await ingest(batches.slice(0, 5));
  }, 120_000);

  describe('top elements from the rollup equal the raw aggregate', () => {
    it('for many windows after ingest over many hours', async () => {
      const total = await h.store.db.selectFrom('signals').select((eb) => eb.fn.countAll<number | string>().as('n')).where('site_id', '=', org.site_id).executeTakeFirstOrThrow();
      expect(Number(total.n)).toBeGreaterThan(1500);
      await expectSameAsRaw();
    });

    it('after late data arrives into an old hour', async () => {
      const old = hourOf(now - 20 * HOUR_MS) + 17 * 60_000;
      const late = Array.from({ length: 30 }, () => signal(pick, old + Math.floor(pick() * 30 * 60_000), '/checkout'));
      // A new user, and one already counted in that hour.
      await ingest([
        { meta: meta(org.site_id, sessions[0].sid, sessions[0].visitorId), events: late.slice(0, 15), now },
        { meta: meta(org.site_id, `late${'0'.repeat(28)}`, 'v-late'), events: late.slice(15), now },
      ]);
      await expectSameAsRaw();
    });

    it('after erasing a person (a visitor with several sessions) and a session without a visitor', async () => {
      const counts = new Map<string, number>();
      for (const s of sessions) if (s.visitorId) counts.set(s.visitorId, (counts.get(s.visitorId) ?? 0) + 1);
      const visitor = [...counts.entries()].sort((a, b) => b[1] - a[1])[0][0];
      const erased = await eraseSessions(h.store.db, { siteId: org.site_id, visitorId: visitor });
      expect(erased.signals).toBeGreaterThan(0);
      const users = await h.store.db.selectFrom('element_rollup').select('user_key').where('site_id', '=', org.site_id).where('user_key', '=', visitor).execute();
      expect(users).toEqual([]);
      // Without a visitor id the session id is the user: deleting its signals directly through the erasure's batch path.
      const anonymous = sessions.find((s) => s.visitorId === null)!;
      const withdrawn = await h.store.db.transaction().execute((trx) => withdrawSignals(trx, org.site_id, 'sid', [anonymous.sid]));
      expect(withdrawn).toBeGreaterThan(0);
      await expectSameAsRaw();
    });

    it('after retention, with the cutoff inside an hour, in small batches', async () => {
      // A one-day period at now + 5h17m: the cutoff falls 18h43m before the data's end, mid-hour.
      const later = now + 5 * HOUR_MS + 17 * 60_000 + 3_001;
      const cutoff = later - 24 * HOUR_MS;
      // Signals on both sides of the cutoff in its hour, from users seen on both sides.
      const inHour = (i: number) => Array.from({ length: 40 }, () => signal(pick, hourOf(cutoff) + Math.floor(pick() * HOUR_MS), '/checkout'))
        .map((e) => ({ ...e, dedupeKey: `${e.dedupeKey}-${i}` }));
      await ingest(sessions.slice(1, 4).map((s, i) => ({ meta: meta(org.site_id, s.sid, s.visitorId), events: inHour(i), now })));
      await expectSameAsRaw();
      const before = await h.store.db.selectFrom('signals').select('id').where('site_id', '=', org.site_id)
        .where('occurred_at', '>=', hourOf(cutoff)).where('occurred_at', '<', cutoff).execute();
      expect(before.length).toBeGreaterThan(0); // the partial hour has signals to withdraw
      await purgeExpiredRawData(h.store, later, 1, 7);
      const left = await h.store.db.selectFrom('signals').select('id').where('site_id', '=', org.site_id).where('occurred_at', '<', cutoff).execute();
      expect(left).toEqual([]);
      const hours = await h.store.db.selectFrom('element_rollup').select('hour').where('site_id', '=', org.site_id).where('hour', '<', hourOf(cutoff)).execute();
      expect(hours).toEqual([]);
      await expectSameAsRaw();
    });

    it('when migration 0008 rolls up the signals already stored (an upgrade)', async () => {
      await sql`drop table element_rollup`.execute(h.store.db);
      await migrateRollup(h.store.db as Kysely<unknown>);
      const rows = await h.store.db.selectFrom('element_rollup').select('hour').where('site_id', '=', org.site_id).execute();
      expect(rows.length).toBeGreaterThan(100);
      await expectSameAsRaw();
    });
  });
});
