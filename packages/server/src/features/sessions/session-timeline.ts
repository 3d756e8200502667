// One session as GET /v1/query/session returns it: the session record, every event in order,
// and its narrative.
import type { Static } from '@sinclair/typebox';
import { iso } from '../../clock.ts';
import type { ServiceContext } from '../../domain/context.ts';
import { AppError } from '../../domain/errors.ts';
import { toSessionRecord } from '../../domain/records/session.ts';
import { resolveSite } from '../../domain/tenancy.ts';
import { buildNarrative } from './narrative.ts';
import type { SessionQuery } from './schemas.ts';
import { sessionEvents } from './session-events.ts';

const SESSION_ID = /^[0-9a-fA-F]{32}$/;

export async function sessionTimeline({ ctx, input }: { ctx: ServiceContext; input: Static<typeof SessionQuery> }) {
  const site = await resolveSite(ctx, input.site_id);
  if (!SESSION_ID.test(input.session_id)) {
    throw new AppError('invalid_input', 'session_id must be 32 hexadecimal characters', { field: 'session_id', reason: 'must be 32 hex characters' });
  }
  const sid = input.session_id.toLowerCase();
  const session = await ctx.db.selectFrom('sessions').selectAll().where('site_id', '=', site.id).where('sid', '=', sid).executeTakeFirst();
  if (!session) throw new AppError('not_found', 'Session not found');
  const rows = await sessionEvents(ctx.db, site.id, sid);
  const events = rows.map((r) => {
    const props = r.props ? (JSON.parse(r.props) as Record<string, unknown>) : null;
    return { row: r, props };
  });
  const narrative = buildNarrative(
    { device_type: session.device_type, browser: session.browser, os: session.os, referrer_host: session.referrer_host, converted: session.converted === 1 },
    events.map(({ row, props }) => ({ type: row.type, page: row.page, occurred_at: row.occurred_at, name: row.name, signal_type: row.signal_type, element: row.element, label: row.label, props })),
  );
  return {
    session: toSessionRecord(session),
    events: events.map(({ row, props }) => ({
      id: row.id,
      type: row.type,
      page: row.page,
      occurred_at: iso(row.occurred_at),
      ...(row.name !== null && { name: row.name }),
      ...(props !== null && { props }),
      ...(row.referrer_page !== null && { referrer_page: row.referrer_page }),
      ...(row.signal_type !== null && { signal_type: row.signal_type }),
      ...(row.type === 'signal' && { element_selector: row.element ?? '' }),
      ...(row.label !== null && { label: row.label }),
      ...(row.confidence !== null && { confidence: row.confidence }),
    })),
    narrative,
  };
}
