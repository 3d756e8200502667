// Stores prepared batches. Concurrent requests are grouped (group commit): one transaction
// stores every queued batch, so the cost of a commit is shared; events and signals go in
// through statements prepared once per connection on SQLite and multi-row statements on
// PostgreSQL (where each statement is a round trip). Each request still answers only after its own rows are committed.
//
// Per group, in one transaction: session rows are created if new and locked (in key order,
// so concurrent PostgreSQL writers cannot deadlock); events are inserted with ON CONFLICT DO
// NOTHING (a retried batch stores nothing twice); signals follow only for the events that
// were new, and the element rollup (store/element-rollup.ts) adds the ones on an element;
// on SQLite the new events and signals are added to their sites' row counts
// (store/row-counts.ts); each session row is updated from its new events.
import { v7 as uuidv7 } from 'uuid';
import type { Insertable, Kysely } from 'kysely';
import { tableChangesOf } from '../store/table-changes.ts';
import type SQLite from 'better-sqlite3';
import { sqliteHandleOf, type Dialect, type Store } from '../store/db.ts';
import { addOneValues, addToRollup, SQLITE_ADD_ONE, type RollupSignal } from '../store/element-rollup.ts';
import { addInsertedRows } from '../store/row-counts.ts';
import type { Database, EventsTable, SessionsTable, SignalsTable } from '../store/tables.ts';
import type { PreparedEvent } from './prepare.ts';
import { mergeSession, type BatchMeta, type SessionRow } from './session.ts';

export interface StoredBatch { inserted: number; duplicates: number }
export interface PendingBatch { meta: BatchMeta; events: readonly PreparedEvent[]; now: number }

/** Rows per INSERT statement: under SQLite's and PostgreSQL's bound-parameter limits. */
const ROWS_PER_STATEMENT = 500;

const sessionKey = (siteId: string, sid: string) => `${siteId}\u0000${sid}`;

function chunks<T>(rows: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) out.push(rows.slice(i, i + ROWS_PER_STATEMENT));
  return out;
}

const EVENT_COLUMNS = [
  'id', 'site_id', 'sid', 'visitor_id', 'type', 'page', 'occurred_at', 'client_ts', 'received_at', 'dedupe_key',
  'name', 'signal_type', 'element', 'label', 'props', 'referrer_page', 'environment',
] as const satisfies readonly (keyof EventsTable)[];
const SIGNAL_COLUMNS = [
  'id', 'site_id', 'event_id', 'sid', 'visitor_id', 'signal_type', 'page', 'element', 'label', 'confidence',
  'occurred_at', 'rx', 'ry', 'vx', 'vy', 'environment',
] as const satisfies readonly (keyof SignalsTable)[];

interface HotStatements { event: SQLite.Statement; signal: SQLite.Statement; rollup: SQLite.Statement }
const hotStatements = new WeakMap<SQLite.Database, HotStatements>();

/**
 * On SQLite, events and signals go in through statements prepared once per connection, a row
 * at a time: with no network between us and the database, binding 17 values to a prepared
 * statement costs less than compiling and preparing a 500-row statement for every chunk.
 */
function prepared(file: SQLite.Database): HotStatements {
  let found = hotStatements.get(file);
  if (!found) {
    const marks = (n: number) => Array(n).fill('?').join(', ');
    found = {
      event: file.prepare(`insert into events (${EVENT_COLUMNS.join(', ')}) values (${marks(EVENT_COLUMNS.length)})
        on conflict (site_id, sid, dedupe_key) do nothing returning id`),
      signal: file.prepare(`insert into signals (${SIGNAL_COLUMNS.join(', ')}) values (${marks(SIGNAL_COLUMNS.length)})`),
      rollup: file.prepare(SQLITE_ADD_ONE),
    };
    hotStatements.set(file, found);
  }
  return found;
}

const valuesOf = <T extends object>(row: T, columns: readonly (keyof T)[]) => columns.map((c) => row[c] ?? null);

export async function storeBatches(db: Kysely<Database>, dialect: Dialect, batches: readonly PendingBatch[]): Promise<StoredBatch[]> {
  const live = batches.filter((b) => b.events.length > 0);
  if (live.length === 0) return batches.map(() => ({ inserted: 0, duplicates: 0 }));
  const file = dialect === 'sqlite' ? sqliteHandleOf(db) : undefined;
  const hot = file ? prepared(file) : undefined;
  const stored = await db.transaction().execute(async (trx) => {
    // 1. Session rows exist and are locked.
    const stubs = new Map<string, Insertable<SessionsTable>>();
    for (const { meta, events } of live) {
      const key = sessionKey(meta.siteId, meta.sid);
      const earliest = Math.min(...events.map((e) => e.occurredAt));
      const stub = stubs.get(key);
      if (stub) stub.first_seen_at = Math.min(stub.first_seen_at, earliest);
      else stubs.set(key, {
        id: uuidv7(), site_id: meta.siteId, sid: meta.sid, visitor_id: meta.visitorId, user_ref: null,
        environment: meta.environment, first_seen_at: earliest, last_seen_at: earliest, entry_page: null,
        exit_page: null, pages: '[]', page_count: 0, event_count: 0, signal_count: 0, signal_counts: '{}',
        device_type: null, browser: null, os: null, viewport_bucket: null, app_version: null,
        referrer_host: null, converted: 0, friction_weight: 0, path: '[]',
      });
    }
    const ordered = [...stubs.values()].sort((a, b) => a.site_id.localeCompare(b.site_id) || a.sid.localeCompare(b.sid));
    for (const rows of chunks(ordered)) {
      await trx.insertInto('sessions').values(rows).onConflict((oc) => oc.columns(['site_id', 'sid']).doNothing()).execute();
    }
    const sessions = new Map<string, SessionRow>();
    for (const rows of chunks(ordered)) {
      let query = trx.selectFrom('sessions').selectAll()
        .where((eb) => eb(eb.refTuple('site_id', 'sid'), 'in', rows.map((r) => eb.tuple(r.site_id, r.sid))))
        .orderBy('site_id').orderBy('sid');
      // SQLite transactions already hold the only write lock; PostgreSQL needs row locks.
      if (dialect === 'postgres') query = query.forUpdate();
      for (const row of await query.execute()) sessions.set(sessionKey(row.site_id, row.sid), row);
    }

    // 2. Events; RETURNING tells which were new.
    const eventIds = live.map(() => new Map<string, string>());
    const eventRows: Insertable<EventsTable>[] = [];
    live.forEach(({ meta, events, now }, b) => {
      for (const e of events) {
        const id = uuidv7();
        eventIds[b].set(e.dedupeKey, id);
        eventRows.push({
          id, site_id: meta.siteId, sid: meta.sid, visitor_id: meta.visitorId, type: e.type, page: e.page,
          occurred_at: e.occurredAt, client_ts: e.clientTs, received_at: now, dedupe_key: e.dedupeKey,
          name: e.name, signal_type: e.signalType, element: e.element, label: e.label, props: e.props,
          referrer_page: e.referrerPage, environment: meta.environment,
        });
      }
    });
    const insertedIds = new Set<string>();
    if (hot) {
      for (const row of eventRows) if (hot.event.get(valuesOf(row, EVENT_COLUMNS))) insertedIds.add(row.id);
    } else for (const rows of chunks(eventRows)) {
      const inserted = await trx.insertInto('events').values(rows)
        .onConflict((oc) => oc.columns(['site_id', 'sid', 'dedupe_key']).doNothing())
        .returning('id').execute();
      for (const r of inserted) insertedIds.add(r.id);
    }

    // 3. Signals of the new events, and the session rows they change.
    const results: StoredBatch[] = [];
    const signalRows: Insertable<SignalsTable>[] = [];
    const changed = new Set<string>();
    live.forEach(({ meta, events }, b) => {
      const fresh = events.filter((e) => insertedIds.has(eventIds[b].get(e.dedupeKey)!));
      results.push({ inserted: fresh.length, duplicates: events.length - fresh.length });
      if (fresh.length === 0) return;
      for (const e of fresh) {
        if (!e.signal) continue;
        signalRows.push({
          id: uuidv7(), site_id: meta.siteId, event_id: eventIds[b].get(e.dedupeKey)!, sid: meta.sid, visitor_id: meta.visitorId,
          signal_type: e.signalType!, page: e.page, element: e.element ?? '', label: e.label,
          confidence: e.signal.confidence, occurred_at: e.occurredAt,
          rx: e.signal.rx, ry: e.signal.ry, vx: e.signal.vx, vy: e.signal.vy, environment: meta.environment,
        });
      }
      const key = sessionKey(meta.siteId, meta.sid);
      sessions.set(key, mergeSession(sessions.get(key)!, fresh, meta));
      changed.add(key);
    });
    if (hot) {
      for (const row of signalRows) {
        hot.signal.run(valuesOf(row, SIGNAL_COLUMNS));
        if (row.element !== '') hot.rollup.run(addOneValues(row as RollupSignal));
      }
    } else {
      for (const rows of chunks(signalRows)) await trx.insertInto('signals').values(rows).execute();
      await addToRollup(trx, signalRows as RollupSignal[], ROWS_PER_STATEMENT);
    }
    if (dialect === 'sqlite') {
      // No trigger counts these two on SQLite (store/row-counts.ts).
      await addInsertedRows(trx, 'events', eventRows.filter((r) => insertedIds.has(r.id)));
      await addInsertedRows(trx, 'signals', signalRows);
    }
    for (const key of changed) {
      const { id, site_id: _site, sid: _sid, ...changes } = sessions.get(key)!;
      await trx.updateTable('sessions').set(changes).where('id', '=', id).execute();
    }

    let next = 0;
    return batches.map((b) => (b.events.length > 0 ? results[next++] : { inserted: 0, duplicates: 0 }));
  });
  // The prepared statements bypass Kysely, so the read cache (store/table-changes.ts) is told here.
  if (hot) tableChangesOf(db)?.mark(['events', 'signals', 'element_rollup']);
  return stored;
}

/** Batches that arrive while a group is being written join the next group. */
export class IngestWriter {
  private queue: (PendingBatch & { resolve(r: StoredBatch): void; reject(e: unknown): void })[] = [];
  private draining: Promise<void> | null = null;

  constructor(private readonly store: Store, private readonly maxGroup = 128) {}

  write(batch: PendingBatch): Promise<StoredBatch> {
    return new Promise((resolve, reject) => {
      this.queue.push({ ...batch, resolve, reject });
      this.draining ??= this.drain();
    });
  }

  private async drain() {
    // Let requests that are already parsed join this group.
    await new Promise((done) => setImmediate(done));
    while (this.queue.length > 0) {
      const group = this.queue.splice(0, this.maxGroup);
      try {
        const results = await storeBatches(this.store.db, this.store.dialect, group);
        group.forEach((p, i) => p.resolve(results[i]));
      } catch {
        // One bad batch must not fail its neighbours: retry each alone.
        for (const p of group) {
          try {
            p.resolve((await storeBatches(this.store.db, this.store.dialect, [p]))[0]);
          } catch (err) {
            p.reject(err);
          }
        }
      }
    }
    this.draining = null;
  }
}
