// GET /v1/query/session: the session, every event in order, and its narrative.
import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-types.ts';
import { Envelope, ok } from '../../http/envelope.ts';
import { QUERY_ACCESS } from '../../http/query.ts';
import { contextOf } from '../../http/context.ts';
import { IsoTime, Nullable } from '../../domain/schema-parts.ts';
import { SessionQuery } from './schemas.ts';
import { sessionTimeline } from './session-timeline.ts';

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

export async function sessionRoutes(app: App) {
  app.get('/query/session', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'One session: timing, device, pages, signal counts, every event and a narrative',
      querystring: SessionQuery,
      response: { 200: Envelope(Type.Object({ session: SessionRecord, events: Type.Array(SessionEvent), narrative: Type.String() })) },
    },
  }, async (request) => ok(await sessionTimeline({ ctx: contextOf(request), input: request.query })));
}
