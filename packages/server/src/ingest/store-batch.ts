// Stores one prepared batch in one transaction with batched inserts: the session row is
// created if new and locked, events are inserted with ON CONFLICT DO NOTHING (a retried batch
// stores nothing twice), signals follow only for the events that were new, and the session
// row is updated from those same new events.
import { v7 as uuidv7 } from 'uuid';
import type { Insertable, Kysely } from 'kysely';
import type { Dialect } from '../store/db.ts';
import type { Database, EventsTable, SignalsTable } from '../store/tables.ts';
import type { PreparedEvent } from './prepare.ts';
import { mergeSession, type BatchMeta } from './session.ts';

export interface StoredBatch { inserted: number; duplicates: number }

export async function storeBatch(db: Kysely<Database>, dialect: Dialect, meta: BatchMeta, events: readonly PreparedEvent[], now: number): Promise<StoredBatch> {
  if (events.length === 0) return { inserted: 0, duplicates: 0 };
  const earliest = Math.min(...events.map((e) => e.occurredAt));
  return db.transaction().execute(async (trx) => {
    await trx.insertInto('sessions').values({
      id: uuidv7(), site_id: meta.siteId, sid: meta.sid, visitor_id: meta.visitorId, user_ref: null,
      environment: meta.environment, first_seen_at: earliest, last_seen_at: earliest, entry_page: null,
      exit_page: null, pages: '[]', page_count: 0, event_count: 0, signal_count: 0, signal_counts: '{}',
      device_type: null, browser: null, os: null, viewport_bucket: null, app_version: null,
      referrer_host: null, converted: 0,
    }).onConflict((oc) => oc.columns(['site_id', 'sid']).doNothing()).execute();

    let sessionQuery = trx.selectFrom('sessions').selectAll().where('site_id', '=', meta.siteId).where('sid', '=', meta.sid);
    // SQLite transactions already hold the only write lock; PostgreSQL needs the row lock.
    if (dialect === 'postgres') sessionQuery = sessionQuery.forUpdate();
    const session = await sessionQuery.executeTakeFirstOrThrow();

    const ids = new Map<string, string>();
    const eventRows: Insertable<EventsTable>[] = events.map((e) => {
      const id = uuidv7();
      ids.set(e.dedupeKey, id);
      return {
        id, site_id: meta.siteId, sid: meta.sid, visitor_id: meta.visitorId, type: e.type, page: e.page,
        occurred_at: e.occurredAt, client_ts: e.clientTs, received_at: now, dedupe_key: e.dedupeKey,
        name: e.name, signal_type: e.signalType, element: e.element, label: e.label, props: e.props,
        referrer_page: e.referrerPage, environment: meta.environment,
      };
    });
    const inserted = await trx.insertInto('events').values(eventRows)
      .onConflict((oc) => oc.columns(['site_id', 'sid', 'dedupe_key']).doNothing())
      .returning('dedupe_key').execute();
    const freshKeys = new Set(inserted.map((r) => r.dedupe_key));
    const fresh = events.filter((e) => freshKeys.has(e.dedupeKey));

    const signalRows: Insertable<SignalsTable>[] = fresh.filter((e) => e.signal).map((e) => ({
      id: uuidv7(), site_id: meta.siteId, event_id: ids.get(e.dedupeKey)!, sid: meta.sid, visitor_id: meta.visitorId,
      signal_type: e.signalType!, page: e.page, element: e.element ?? '', label: e.label,
      confidence: e.signal!.confidence, occurred_at: e.occurredAt,
      rx: e.signal!.rx, ry: e.signal!.ry, vx: e.signal!.vx, vy: e.signal!.vy, environment: meta.environment,
    }));
    if (signalRows.length > 0) await trx.insertInto('signals').values(signalRows).execute();

    if (fresh.length > 0) {
      const { id, site_id, sid, ...changes } = mergeSession(session, fresh, meta);
      await trx.updateTable('sessions').set(changes).where('id', '=', id).execute();
    }
    return { inserted: fresh.length, duplicates: events.length - fresh.length };
  });
}
