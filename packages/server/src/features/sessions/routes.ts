// GET /v1/query/session: the session, every event in order, and its narrative.
import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-types.ts';
import { iso } from '../../clock.ts';
import { AppError } from '../../domain/errors.ts';
import { Envelope, ok } from '../../http/envelope.ts';
import { QUERY_ACCESS } from '../../http/query.ts';
import { IsoTime, Nullable } from '../../domain/schema-parts.ts';
import { resolveSite } from '../../domain/tenancy.ts';
import { buildNarrative } from './narrative.ts';

const SESSION_ID = /^[0-9a-fA-F]{32}$/;

const SessionRecord = Type.Object({
  session_id: Type.String(),
  visitor_id: Nullable(Type.String()),
  user_ref: Nullable(Type.String()),
  environment: Type.String(),
  started_at: IsoTime,
  ended_at: IsoTime,
  duration_ms: Type.Integer(),
  entry_page: Nullable(Type.String()),
  exit_page: Nullable(Type.String()),
  pages: Type.Array(Type.String(), { description: 'Pages viewed, in order' }),
  page_count: Type.Integer(),
  event_count: Type.Integer(),
  signal_count: Type.Integer(),
  signal_counts: Type.Record(Type.String(), Type.Integer()),
  device_type: Nullable(Type.String()),
  browser: Nullable(Type.String()),
  os: Nullable(Type.String()),
  viewport_bucket: Nullable(Type.String()),
  app_version: Nullable(Type.String()),
  referrer_host: Nullable(Type.String()),
  converted: Type.Boolean(),
});

const SessionEvent = Type.Object({
  id: Type.String(),
  type: Type.String(),
  page: Type.String(),
  occurred_at: IsoTime,
  name: Type.Optional(Type.String()),
  props: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  referrer_page: Type.Optional(Type.String()),
  signal_type: Type.Optional(Type.String()),
  element_selector: Type.Optional(Type.String()),
  label: Type.Optional(Type.String()),
  confidence: Type.Optional(Type.Number()),
});

const Query = Type.Object({
  site_id: Type.Optional(Type.String({ maxLength: 64 })),
  session_id: Type.String({ maxLength: 64, description: '32 hexadecimal characters' }),
});

export async function sessionRoutes(app: App) {
  const { store } = app.services;

  app.get('/query/session', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'One session: timing, device, pages, signal counts, every event and a narrative',
      querystring: Query,
      response: { 200: Envelope(Type.Object({ session: SessionRecord, events: Type.Array(SessionEvent), narrative: Type.String() })) },
    },
  }, async (request) => {
    const site = await resolveSite({ db: store.db, auth: request.auth! }, request.query.site_id);
    if (!SESSION_ID.test(request.query.session_id)) {
      throw new AppError('invalid_input', 'session_id must be 32 hexadecimal characters', { field: 'session_id', reason: 'must be 32 hex characters' });
    }
    const sid = request.query.session_id.toLowerCase();
    const session = await store.db.selectFrom('sessions').selectAll().where('site_id', '=', site.id).where('sid', '=', sid).executeTakeFirst();
    if (!session) throw new AppError('not_found', 'Session not found');
    const rows = await store.db.selectFrom('events')
      .leftJoin('signals', 'signals.event_id', 'events.id')
      .select(['events.id', 'events.type', 'events.page', 'events.occurred_at', 'events.name', 'events.props', 'events.referrer_page',
        'events.signal_type', 'events.element', 'events.label', 'signals.confidence'])
      .where('events.site_id', '=', site.id).where('events.sid', '=', sid)
      .orderBy('events.occurred_at', 'asc').orderBy('events.id', 'asc')
      .execute();

    const events = rows.map((r) => {
      const props = r.props ? (JSON.parse(r.props) as Record<string, unknown>) : null;
      return { row: r, props };
    });
    const narrative = buildNarrative(
      { device_type: session.device_type, browser: session.browser, os: session.os, referrer_host: session.referrer_host, converted: session.converted === 1 },
      events.map(({ row, props }) => ({ type: row.type, page: row.page, occurred_at: row.occurred_at, name: row.name, signal_type: row.signal_type, element: row.element, label: row.label, props })),
    );
    return ok({
      session: {
        session_id: session.sid,
        visitor_id: session.visitor_id,
        user_ref: session.user_ref,
        environment: session.environment,
        started_at: iso(session.first_seen_at),
        ended_at: iso(session.last_seen_at),
        duration_ms: session.last_seen_at - session.first_seen_at,
        entry_page: session.entry_page,
        exit_page: session.exit_page,
        pages: JSON.parse(session.pages) as string[],
        page_count: session.page_count,
        event_count: session.event_count,
        signal_count: session.signal_count,
        signal_counts: JSON.parse(session.signal_counts) as Record<string, number>,
        device_type: session.device_type,
        browser: session.browser,
        os: session.os,
        viewport_bucket: session.viewport_bucket,
        app_version: session.app_version,
        referrer_host: session.referrer_host,
        converted: session.converted === 1,
      },
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
    });
  });
}
