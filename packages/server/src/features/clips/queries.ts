// The clip reads: a site's clips filtered and a page at a time (newest first, through
// clips_site_started), one clip with its events decompressed, and a page's latest snapshot.
// An issue's clips are those covering a signal of its type on its element and page (how the
// clustering groups signals into an issue), found through clip_signals_issue.
import type { ExpressionBuilder } from 'kysely';
import { iso } from '../../clock.ts';
import type { ServiceContext } from '../../domain/context.ts';
import { AppError } from '../../domain/errors.ts';
import { readWindow } from '../../domain/read-window.ts';
import { pageParam } from '../../domain/site-settings.ts';
import { resolveSite } from '../../domain/tenancy.ts';
import type { ClipsTable, Database } from '../../store/tables.ts';
import { decodeEvents } from './codec.ts';
import { RRWEB_FULL_SNAPSHOT, type ClipsQuery, type PageSnapshotQuery } from './schemas.ts';

type ClipFields = Pick<ClipsTable, 'id' | 'sid' | 'page' | 'device' | 'signal_ids' | 'signal_types' | 'started_at' | 'ended_at' | 'bytes'>;
const ROW_COLUMNS = ['id', 'sid', 'page', 'device', 'signal_ids', 'signal_types', 'started_at', 'ended_at', 'bytes'] as const;

function clipRow(r: ClipFields) {
  return {
    id: r.id, session_id: r.sid, page: r.page, device: r.device,
    signal_ids: JSON.parse(r.signal_ids) as string[], signal_types: JSON.parse(r.signal_types) as string[],
    started_at: iso(r.started_at), ended_at: iso(r.ended_at), bytes: Number(r.bytes),
  };
}

export async function listClips({ ctx, input }: { ctx: ServiceContext; input: ClipsQuery }) {
  const site = await resolveSite(ctx, input.site_id);
  const { from, to } = readWindow(input, ctx.now, null);
  const page = input.page === undefined ? null : await pageParam(ctx, site.id, input.page);
  const sid = input.session_id?.toLowerCase();
  if (sid !== undefined) {
    const session = await ctx.db.selectFrom('sessions').select('sid').where('site_id', '=', site.id).where('sid', '=', sid).executeTakeFirst();
    if (!session) throw new AppError('not_found', 'Session not found');
  }
  let issue: { type: string; element_selector: string; page: string } | undefined;
  if (input.issue_id !== undefined) {
    issue = await ctx.db.selectFrom('ux_issues').select(['type', 'element_selector', 'page'])
      .where('site_id', '=', site.id).where('id', '=', input.issue_id.toLowerCase()).executeTakeFirst();
    if (!issue) throw new AppError('not_found', 'Issue not found');
  }
  const covering = (eb: ExpressionBuilder<Database, 'clips'>) => eb.selectFrom('clip_signals').select('clip_signals.clip_id')
    .whereRef('clip_signals.clip_id', '=', 'clips.id');
  let q = ctx.db.selectFrom('clips').where('site_id', '=', site.id).where('kind', '=', 'clip');
  if (sid !== undefined) q = q.where('sid', '=', sid);
  if (page !== null) q = q.where('page', '=', page);
  if (input.device) q = q.where('device', '=', input.device);
  if (from !== null) q = q.where('started_at', '>=', from);
  if (to !== null) q = q.where('started_at', '<', to);
  const type = input.signal_type;
  if (type) q = q.where((eb) => eb.exists(covering(eb).where('clip_signals.signal_type', '=', type)));
  if (issue) {
    const { type: issueType, element_selector: element, page: issuePage } = issue;
    q = q.where((eb) => eb.exists(covering(eb).where('clip_signals.signal_type', '=', issueType)
      .where('clip_signals.element', '=', element).where('clip_signals.page', '=', issuePage)));
  }
  const { offset = 0, limit = 50 } = input;
  const [rows, count] = await Promise.all([
    q.select(ROW_COLUMNS).orderBy('started_at', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute(),
    q.select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { clips: rows.map(clipRow), total: Number(count.n), offset, limit };
}

/** One clip of the caller's site with its rrweb events; another site's id is 404, as an unknown one. */
export async function getClip({ ctx, input }: { ctx: ServiceContext; input: { id: string; site_id?: string } }) {
  const site = await resolveSite(ctx, input.site_id);
  const row = await ctx.db.selectFrom('clips').select([...ROW_COLUMNS, 'width', 'height', 'encoding', 'body'])
    .where('site_id', '=', site.id).where('id', '=', input.id.toLowerCase()).where('kind', '=', 'clip').executeTakeFirst();
  if (!row) throw new AppError('not_found', 'Clip not found');
  return { ...clipRow(row), width: row.width, height: row.height, events: await decodeEvents(row.body, row.encoding) };
}

/** The latest snapshot of a page on a device class: its rrweb FullSnapshot event, size and time. */
export async function pageSnapshot({ ctx, input }: { ctx: ServiceContext; input: PageSnapshotQuery }) {
  const site = await resolveSite(ctx, input.site_id);
  const page = await pageParam(ctx, site.id, input.page);
  const device = input.device ?? 'desktop';
  const row = await ctx.db.selectFrom('clips').select(['width', 'height', 'created_at', 'encoding', 'body'])
    .where('site_id', '=', site.id).where('kind', '=', 'snapshot').where('page', '=', page).where('device', '=', device)
    .orderBy('created_at', 'desc').orderBy('id', 'desc').limit(1).executeTakeFirst();
  if (!row) throw new AppError('not_found', `No snapshot of ${page} on ${device} yet`);
  const events = await decodeEvents(row.body, row.encoding);
  const snapshot = events.find((e) => (e as { type?: unknown }).type === RRWEB_FULL_SNAPSHOT);
  // Uploads without one are refused (upload.ts), so this is a stored row damaged since.
  if (!snapshot) throw new AppError('not_found', `No snapshot of ${page} on ${device} yet`);
  return { page, device, width: row.width, height: row.height, taken_at: iso(row.created_at), snapshot };
}
