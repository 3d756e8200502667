// POST /v1/ingest/clips after the shared ingest steps (key, site, rate limit, origin, bots):
// the upload checked against the wire format, the session and signals it names found on the
// key's site (else 404, nothing stored), its events compressed, and then one transaction that
// applies the day's budgets and stores the clip with its signals, or nothing.
import { sql, PostgresAdapter, type Kysely } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import { AppError } from '../../domain/errors.ts';
import { clipRefusal, utcDayStart, type ClipKind, type ClipRefusal } from '../../domain/clips.ts';
import { normalizePage, type PageGroup } from '../../domain/normalize.ts';
import { DAY_MS } from '../../domain/time.ts';
import { checkFailure } from '../../domain/validation-error.ts';
import { padInList } from '../../store/in-list.ts';
import type { Database } from '../../store/tables.ts';
import { CLIP_ENCODING, encodeEvents } from './codec.ts';
import { checkClipUpload, MAX_CLIP_SPAN_MS, RRWEB_FULL_SNAPSHOT, type ClipUpload } from './schemas.ts';

/** How far a clip's client times may lie from the server's: a day ahead, a week back (a retried upload). */
const MAX_FUTURE_MS = DAY_MS;
const MAX_PAST_MS = 7 * DAY_MS;

const invalid = (field: string, reason: string) => new AppError('invalid_input', `${field}: ${reason}`, { field, reason });

/** The upload against the wire format and its own rules; throws 400 invalid_input naming the field. */
export function checkUpload(body: unknown, now: number): ClipUpload {
  if (!checkClipUpload.Check(body)) {
    throw checkFailure(checkClipUpload, body);
  }
  const upload = body;
  const signals = upload.signal_ids ?? [];
  if (upload.kind === 'clip' && signals.length === 0) throw invalid('signal_ids', 'a clip names 1 to 50 signals');
  if (upload.kind === 'snapshot' && signals.length > 0) throw invalid('signal_ids', 'a snapshot names no signals');
  if (upload.ended_at < upload.started_at) throw invalid('ended_at', 'must not be before started_at');
  if (upload.kind === 'clip' && upload.ended_at - upload.started_at > MAX_CLIP_SPAN_MS) throw invalid('ended_at', `a clip spans at most ${MAX_CLIP_SPAN_MS / 1000} s`);
  if (upload.started_at < now - MAX_PAST_MS) throw invalid('started_at', 'must be within the last 7 days');
  if (upload.ended_at > now + MAX_FUTURE_MS) throw invalid('ended_at', 'must not be more than a day ahead');
  if (upload.kind === 'snapshot' && !upload.events.some((e) => e.type === RRWEB_FULL_SNAPSHOT)) throw invalid('events', 'a snapshot holds an rrweb FullSnapshot event (type 2)');
  return upload;
}

/** The page as ingest stores it (path only, ids grouped, the site's page groups), or 400. */
export function clipPage(page: string, pageGroups: PageGroup[]): string {
  const normalized = page.startsWith('/') ? normalizePage(page, pageGroups) : null;
  if (!normalized) throw invalid('page', 'must be a path starting with /');
  return normalized;
}

export interface CoveredSignal { eventId: string; type: string; element: string; page: string }
export interface References { visitorId: string | null; signals: CoveredSignal[] }

/**
 * The session and signals the upload names, on the key's site: a session the site does not
 * hold, or any id that is not a stored signal event of that session, is 404 not_found naming
 * the field; what another site holds is never looked at.
 */
export async function findReferences(db: Kysely<Database>, siteId: string, upload: ClipUpload): Promise<References> {
  const sid = upload.sid.toLowerCase();
  const session = await db.selectFrom('sessions').select('visitor_id').where('site_id', '=', siteId).where('sid', '=', sid).executeTakeFirst();
  if (!session) throw new AppError('not_found', 'No session with this sid on the key\'s site', { field: 'sid' });
  const ids = [...new Set((upload.signal_ids ?? []).map((id) => id.toLowerCase()))];
  if (ids.length === 0) return { visitorId: session.visitor_id, signals: [] };
  // Events are unique per (site, sid, dedupe_key), and an SDK id is kept as `id:<id>` (ingest/prepare.ts).
  const rows = await db.selectFrom('events').innerJoin('signals', 'signals.event_id', 'events.id')
    .select(['events.dedupe_key', 'signals.signal_type', 'signals.element', 'signals.page'])
    .where('events.site_id', '=', siteId).where('events.sid', '=', sid).where('events.type', '=', 'signal')
    .where('events.dedupe_key', 'in', padInList(ids.map((id) => `id:${id}`)))
    .where('signals.site_id', '=', siteId).where('signals.sid', '=', sid)
    .execute();
  const found = new Map(rows.map((r) => [r.dedupe_key.slice(3), r]));
  const missing = ids.find((id) => !found.has(id));
  if (missing) throw new AppError('not_found', `No stored signal ${missing} in this session`, { field: 'signal_ids' });
  return {
    visitorId: session.visitor_id,
    signals: ids.map((id) => {
      const r = found.get(id)!;
      return { eventId: id, type: r.signal_type, element: r.element, page: r.page };
    }),
  };
}

export interface PreparedClip {
  siteId: string; clientId: string; kind: ClipKind; sid: string; visitorId: string | null; environment: string;
  page: string; device: string; signals: CoveredSignal[]; startedAt: number; endedAt: number;
  width: number; height: number; eventCount: number; body: Buffer;
}

/** The events compressed, outside any transaction. */
export async function prepareClip(upload: ClipUpload, input: { siteId: string; page: string; device: string; refs: References }): Promise<PreparedClip> {
  return {
    siteId: input.siteId, clientId: upload.id.toLowerCase(), kind: upload.kind as ClipKind, sid: upload.sid.toLowerCase(), visitorId: input.refs.visitorId,
    environment: upload.env ?? 'production', page: input.page, device: input.device, signals: input.refs.signals,
    startedAt: Math.round(upload.started_at), endedAt: Math.round(upload.ended_at), width: upload.width, height: upload.height,
    eventCount: upload.events.length, body: await encodeEvents(upload.events),
  };
}

export type StoreOutcome = { stored: true; clipId: string } | { stored: false; reason: ClipRefusal; clipId?: string };

/** Whether this site already holds the upload's id: a retry skips the compression. */
export async function storedClip(db: Kysely<Database>, siteId: string, clientId: string): Promise<{ id: string; bytes: number } | null> {
  const row = await db.selectFrom('clips').select(['id', 'bytes']).where('site_id', '=', siteId).where('client_id', '=', clientId.toLowerCase()).executeTakeFirst();
  return row ? { id: row.id, bytes: Number(row.bytes) } : null;
}

/**
 * One transaction: the duplicate check, the day's budgets as they stand, and the clip with its
 * signals, or nothing. On PostgreSQL a transaction-scoped advisory lock per site makes
 * concurrent uploads of a site take turns, so two of them never both take the last of a budget;
 * SQLite's writers take turns already.
 */
export async function storeClip(db: Kysely<Database>, clip: PreparedClip, now: number): Promise<StoreOutcome> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  return db.transaction().execute(async (trx) => {
    if (postgres) await sql`select pg_advisory_xact_lock(hashtext(${`clips:${clip.siteId}`}))`.execute(trx);
    const earlier = await storedClip(trx, clip.siteId, clip.clientId);
    if (earlier) return { stored: false, reason: 'duplicate', clipId: earlier.id };
    const day = utcDayStart(now);
    const [site, spent, taken, perElement] = await Promise.all([
      trx.selectFrom('sites').select('clip_daily_bytes').where('id', '=', clip.siteId).executeTakeFirstOrThrow(),
      trx.selectFrom('clips').select((eb) => eb.fn.sum<number | string | null>('bytes').as('n'))
        .where('site_id', '=', clip.siteId).where('created_at', '>=', day).executeTakeFirst(),
      clip.kind === 'snapshot'
        ? trx.selectFrom('clips').select('id').where('site_id', '=', clip.siteId).where('kind', '=', 'snapshot')
          .where('page', '=', clip.page).where('device', '=', clip.device).where('created_at', '>=', day).limit(1).executeTakeFirst()
        : undefined,
      elementCounts(trx, clip, day),
    ]);
    const refusal = clipRefusal(clip.kind, clip.body.length, clip.signals.map((s) => s.element), {
      bytes: Number(spent?.n ?? 0), budget: Number(site.clip_daily_bytes), elementClips: perElement, snapshotTaken: taken !== undefined,
    });
    if (refusal) return { stored: false, reason: refusal };
    const id = uuidv7();
    await trx.insertInto('clips').values({
      id, site_id: clip.siteId, client_id: clip.clientId, kind: clip.kind, sid: clip.sid, visitor_id: clip.visitorId, environment: clip.environment,
      page: clip.page, device: clip.device, signal_ids: JSON.stringify(clip.signals.map((s) => s.eventId)),
      signal_types: JSON.stringify(clip.signals.map((s) => s.type)), started_at: clip.startedAt, ended_at: clip.endedAt,
      width: clip.width, height: clip.height, event_count: clip.eventCount, bytes: clip.body.length, encoding: CLIP_ENCODING, body: clip.body, created_at: now,
    }).execute();
    if (clip.signals.length > 0) {
      await trx.insertInto('clip_signals').values(clip.signals.map((s) => ({
        clip_id: id, event_id: s.eventId, site_id: clip.siteId, signal_type: s.type, page: s.page, element: s.element, created_at: now,
      }))).execute();
    }
    return { stored: true, clipId: id };
  });
}

/** Clips stored today per element of the clip's signals (elements named only). */
async function elementCounts(db: Kysely<Database>, clip: PreparedClip, day: number): Promise<Map<string, number>> {
  const elements = [...new Set(clip.signals.map((s) => s.element).filter((e) => e !== ''))];
  if (clip.kind !== 'clip' || elements.length === 0) return new Map();
  const rows = await db.selectFrom('clip_signals')
    .select((eb) => ['element', eb.fn.count<number | string>('clip_id').distinct().as('n')])
    .where('site_id', '=', clip.siteId).where('created_at', '>=', day).where('element', 'in', padInList(elements))
    .groupBy('element').execute();
  return new Map(rows.map((r) => [r.element, Number(r.n)]));
}
