// Data-subject requests (GDPR articles 15 and 17, CCPA): everything stored about one person,
// found by their visitor id or the user_ref that identify() gave them, exported as a stream
// or erased. A person's sessions are those with the visitor id, or with the user_ref plus
// every session of the visitor ids those carry (their anonymous visits on the same device).
// Erasure goes in batches of sessions, each batch in one transaction, so a crash leaves whole
// sessions either erased or untouched, and running it again finishes the job. The element
// rollup names users, so their signals leave it in the same transaction. Friction clips and
// page snapshots of those sessions are erased with them, and the export lists them (their
// metadata, not the recorded events: GET /v1/query/clips/{id} has those). Aggregates that
// name no one (scores, issue counts, history) stay.
import { sql, type Kysely } from 'kysely';
import { recordAudit } from '../../audit/record.ts';
import type { Secrets } from '../../auth/secrets.ts';
import type { ServiceContext } from '../../domain/context.ts';
import { invalidInput } from '../../domain/errors.ts';
import { resolveSite } from '../../domain/tenancy.ts';
import { sqliteHandleOf } from '../../store/db.ts';
import { withdrawSignals } from '../../store/element-rollup.ts';
import type { Database } from '../../store/tables.ts';
import { SUBJECT_KEYS, type ErasureResult, type ErasureStorage, type SubjectQuery } from './schemas.ts';

/** Sessions erased per transaction. */
const ERASE_BATCH = 200;
/** Rows read per query while exporting. */
const EXPORT_CHUNK = 1000;

export interface Subject { siteId: string; visitorId?: string; userRef?: string }

function subjectOf(input: SubjectQuery, siteId: string): Subject {
  if ((input.visitor_id === undefined) === (input.user_ref === undefined)) {
    throw invalidInput(input.visitor_id === undefined ? 'visitor_id' : 'user_ref', `give exactly one of ${SUBJECT_KEYS.join(' and ')}`);
  }
  return { siteId, visitorId: input.visitor_id, userRef: input.user_ref };
}

/** The session ids (sid) of the person, on their site. */
export async function sessionsOf(db: Kysely<Database>, subject: Subject): Promise<string[]> {
  let visitors: string[] = subject.visitorId ? [subject.visitorId] : [];
  const sids = new Set<string>();
  if (subject.userRef) {
    const identified = await db.selectFrom('sessions').select(['sid', 'visitor_id'])
      .where('site_id', '=', subject.siteId).where('user_ref', '=', subject.userRef).execute();
    for (const s of identified) sids.add(s.sid);
    visitors = [...new Set(identified.map((s) => s.visitor_id).filter((v): v is string => v !== null))];
  }
  for (let i = 0; i < visitors.length; i += 500) {
    const rows = await db.selectFrom('sessions').select('sid').where('site_id', '=', subject.siteId).where('visitor_id', 'in', visitors.slice(i, i + 500)).execute();
    for (const s of rows) sids.add(s.sid);
    // Events, signals and clips of a visitor whose session row is gone (retention runs per table) name them too.
    const orphans = await db.selectFrom('events').select('sid').distinct().where('site_id', '=', subject.siteId).where('visitor_id', 'in', visitors.slice(i, i + 500)).execute();
    for (const s of orphans) sids.add(s.sid);
    const clipped = await db.selectFrom('clips').select('sid').distinct().where('site_id', '=', subject.siteId).where('visitor_id', 'in', visitors.slice(i, i + 500)).execute();
    for (const s of clipped) sids.add(s.sid);
  }
  return [...sids].sort();
}

/** The audit row names the subject by a keyed hash, never in the clear. */
const auditSubject = (secrets: Secrets, s: Subject) =>
  ({ by: s.visitorId !== undefined ? 'visitor_id' : 'user_ref', subject_hash: secrets.hmac('privacy-subject', s.visitorId ?? s.userRef!).slice(0, 16) });

/** Checks the request and the site first; the export's rows are read as the stream is consumed. */
export async function exportSubject({ ctx, input, secrets }: { ctx: ServiceContext; input: SubjectQuery; secrets: Secrets }) {
  const site = await resolveSite(ctx, input.site_id);
  const subject = subjectOf(input, site.id);
  const { sids, chunks } = await exportChunksFor(ctx.db, subject, ctx.now);
  await ctx.db.transaction().execute((trx) => recordAudit(trx, ctx, {
    action: 'privacy.exported', targetType: 'privacy_subject', targetId: null, siteId: site.id, details: { ...auditSubject(secrets, subject), sessions: sids.length },
  }));
  return { filename: `subject-${site.id}.json`, chunks };
}

/** The person's sessions, and the export's text to be read a piece at a time. */
async function exportChunksFor(db: Kysely<Database>, subject: Subject, now: number) {
  const sids = await sessionsOf(db, subject);
  return { sids, chunks: exportChunks(db, subject, sids, now) };
}

/** A clip's row as exported: what was recorded when and where, not the recording (`body`). */
const CLIP_EXPORT_COLUMNS = [
  'id', 'kind', 'sid', 'visitor_id', 'environment', 'page', 'device', 'signal_ids', 'signal_types',
  'started_at', 'ended_at', 'width', 'height', 'event_count', 'bytes', 'created_at',
] as const;

/** `{"data":{"site_id":…,"exported_at":…,"sessions":[…],"events":[…],"signals":[…],"clips":[…]},"error":null}`, a piece at a time. */
async function* exportChunks(db: Kysely<Database>, subject: Subject, sids: string[], now: number): AsyncGenerator<string> {
  yield `{"data":{"site_id":${JSON.stringify(subject.siteId)},"exported_at":${JSON.stringify(new Date(now).toISOString())}`;
  for (const table of ['sessions', 'events', 'signals', 'clips'] as const) {
    yield `,"${table}":[`;
    let first = true;
    for (let i = 0; i < sids.length; i += 200) {
      const batch = sids.slice(i, i + 200);
      let after = '';
      for (;;) {
        const rows = table === 'clips'
          ? await db.selectFrom('clips').select(CLIP_EXPORT_COLUMNS).where('site_id', '=', subject.siteId).where('sid', 'in', batch)
            .where('id', '>', after).orderBy('id').limit(EXPORT_CHUNK).execute()
          : await db.selectFrom(table).selectAll().where('site_id', '=', subject.siteId).where('sid', 'in', batch)
            .where('id', '>', after).orderBy('id').limit(EXPORT_CHUNK).execute();
        if (rows.length === 0) break;
        yield `${first ? '' : ','}${rows.map((row) => JSON.stringify(exportRow(row as Record<string, unknown>))).join(',')}`;
        first = false;
        after = String((rows.at(-1) as { id: string }).id);
        if (rows.length < EXPORT_CHUNK) break;
      }
    }
    yield ']';
  }
  yield '},"error":null}';
}

/** Times as ISO 8601 and stored JSON as JSON, as the rest of the API shows them. */
function exportRow(row: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) {
    // A session's path (migration 0022) repeats its events and signals, which the export holds.
    if (key === 'path') continue;
    if (typeof value === 'number' && /(_at|_ts)$/.test(key)) out[key] = new Date(value).toISOString();
    else if (typeof value === 'string' && ['props', 'pages', 'signal_counts', 'signal_ids', 'signal_types'].includes(key)) out[key] = JSON.parse(value);
    else out[key] = value;
  }
  return out;
}

/** Removes the person's sessions, events, signals, clips and issue evidence; erasing twice finds nothing. */
export async function eraseSubject({ ctx, input, secrets }: { ctx: ServiceContext; input: SubjectQuery; secrets: Secrets }): Promise<ErasureResult> {
  const site = await resolveSite(ctx, input.site_id);
  const subject = subjectOf(input, site.id);
  const erased = await eraseSessions(ctx.db, subject);
  await ctx.db.transaction().execute((trx) => recordAudit(trx, ctx, {
    action: 'privacy.erased', targetType: 'privacy_subject', targetId: null, siteId: site.id, details: { ...auditSubject(secrets, subject), ...erased },
  }));
  return { erased, storage: await scrubStorage(ctx.db) };
}

const BACKUPS_NOTE = 'Backups taken before this erasure still hold the person\'s data: delete them, or erase the person again after restoring one (docs/privacy.md).';

/**
 * After an erasure, what is left of the rows in the store's files. On SQLite the main connection
 * runs with secure_delete (store/db.ts), so the deleted rows' bytes are already zeros in their
 * pages; the WAL still holds earlier copies of those pages until a checkpoint copies them back
 * and the file is truncated, which this does (TRUNCATE waits, up to the busy timeout, for
 * readers to leave the log). PostgreSQL keeps the rows as dead tuples until VACUUM: not run
 * here (a VACUUM of the events table may take minutes); docs/privacy.md says how.
 */
async function scrubStorage(db: Kysely<Database>): Promise<ErasureStorage> {
  if (!sqliteHandleOf(db)) {
    return { overwritten: false, wal_truncated: null, note: `The rows remain in PostgreSQL's table files as dead tuples until VACUUM removes them (autovacuum does, in time; run VACUUM on events, signals, sessions, issue_evidence, element_rollup, clips and clip_signals to hasten it). ${BACKUPS_NOTE}` };
  }
  const row = (await sql<{ busy: number; log: number; checkpointed: number }>`PRAGMA wal_checkpoint(TRUNCATE)`.execute(db)).rows[0];
  // busy 0 and log 0: every frame was copied back and the log is empty (-1: not in WAL mode, e.g. ':memory:').
  const truncated = row !== undefined && row.busy === 0 && row.log <= 0;
  return { overwritten: true, wal_truncated: truncated, note: BACKUPS_NOTE };
}

/** The erasure itself: the person's rows, batch by batch. */
export async function eraseSessions(db: Kysely<Database>, subject: Subject): Promise<ErasureResult['erased']> {
  const totals = { sessions: 0, events: 0, signals: 0, issue_evidence: 0, clips: 0 };
  const sids = await sessionsOf(db, subject);
  for (let i = 0; i < sids.length; i += ERASE_BATCH) {
    const batch = sids.slice(i, i + ERASE_BATCH);
    await db.transaction().execute(async (trx) => {
      const evidence = await trx.deleteFrom('issue_evidence').where('sid', 'in', batch)
        .where('issue_id', 'in', trx.selectFrom('ux_issues').select('id').where('site_id', '=', subject.siteId)).executeTakeFirst();
      // The element rollup names users: their signals are withdrawn from it as they go.
      const signals = await withdrawSignals(trx, subject.siteId, 'sid', batch);
      const events = await trx.deleteFrom('events').where('site_id', '=', subject.siteId).where('sid', 'in', batch).executeTakeFirst();
      const sessions = await trx.deleteFrom('sessions').where('site_id', '=', subject.siteId).where('sid', 'in', batch).executeTakeFirst();
      // Their signal rows go with them (clip_signals, ON DELETE CASCADE).
      const clips = await trx.deleteFrom('clips').where('site_id', '=', subject.siteId).where('sid', 'in', batch).executeTakeFirst();
      totals.clips += Number(clips.numDeletedRows);
      totals.issue_evidence += Number(evidence.numDeletedRows);
      totals.signals += signals;
      totals.events += Number(events.numDeletedRows);
      totals.sessions += Number(sessions.numDeletedRows);
    });
  }
  return totals;
}
