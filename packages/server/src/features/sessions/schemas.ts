import { Type } from '@sinclair/typebox';
import { IsoTime, Nullable, SiteIdParam } from '../../domain/schema-parts.ts';

export const SessionQuery = Type.Object({
  site_id: Type.Optional(SiteIdParam),
  session_id: Type.String({ maxLength: 64, description: 'The session id: 32 hexadecimal characters, as issues, heatmaps and the friction map name it' }),
});

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
  signal_counts: Type.Record(Type.String(), Type.Integer(), { description: 'Signal count per signal type' }),
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
  props: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'The properties the SDK sent with the event, as sent' })),
  referrer_page: Type.Optional(Type.String()),
  signal_type: Type.Optional(Type.String()),
  element_selector: Type.Optional(Type.String()),
  label: Type.Optional(Type.String()),
  confidence: Type.Optional(Type.Number()),
});

export const SessionTimeline = Type.Object({ session: SessionRecord, events: Type.Array(SessionEvent), narrative: Type.String() });
