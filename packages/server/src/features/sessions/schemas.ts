import { Type, type Static } from '@sinclair/typebox';
import { IsoTime, Nullable, OneOf, PagingQuery, SiteIdParam } from '../../domain/schema-parts.ts';
import { DEVICE_TYPES, ReadFilterQuery } from '../../domain/read-window.ts';
import { SessionRecord } from '../../domain/records/session.ts';

export const SessionQuery = Type.Object({
  site_id: Type.Optional(SiteIdParam),
  session_id: Type.String({ maxLength: 64, description: 'The session id: 32 hexadecimal characters, as issues, heatmaps and the friction map name it' }),
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

/** How the sessions search orders its rows: most friction, latest start or longest first. */
export const SESSION_SORTS = ['friction', 'start', 'duration'] as const;
/** How far back the sessions search looks when no `from` is given. */
export const SESSIONS_DEFAULT_DAYS = 7;
/** The most sessions a search counts: its `total` stops there and says `total_capped` (a count that grew with the traffic). */
export const SESSIONS_TOTAL_CAP = 10_000;
const UUID_TEXT = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';

export const SessionsSearchQuery = Type.Object({
  site_id: Type.Optional(SiteIdParam),
  page: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'Only sessions that viewed a page matching this pattern: a path, exact (normalized as ingest stores pages), or with * wildcards matching any run of characters (/checkout*, /account/*/orders); case-sensitive' })),
  signal_type: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-z][a-z0-9_]*$', description: 'Only sessions with at least one signal of this type, e.g. rage_click' })),
  issue_id: Type.Optional(Type.String({ maxLength: 64, pattern: UUID_TEXT, description: 'Only sessions that met this issue: a signal of its type on its element and page (a UUID of an issue of the site)' })),
  ...ReadFilterQuery,
  browser: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Only sessions in this browser family, as the rows name it (Chrome, Safari, Firefox, Microsoft Edge, ...); case-insensitive' })),
  converted: Type.Optional(Type.Boolean({ description: 'true: only sessions with a conversion event of the site\'s revenue config (revenue_config.conversion_events); false: only those without (default: both)' })),
  has_clips: Type.Optional(Type.Boolean({ description: 'true: only sessions with at least one friction clip (GET /v1/query/clips?session_id= lists them); false: only sessions without one (default: both)' })),
  min_friction: Type.Optional(Type.Number({ minimum: 0, maximum: 1_000_000, description: 'Only sessions whose friction weight (sum of weight x confidence of their signals) is at least this (0 to 1000000; default: no minimum)' })),
  sort: Type.Optional(OneOf(SESSION_SORTS, 'friction (default): highest friction weight first; start: latest start first; duration: longest first (each then latest start, then session id)')),
  ...PagingQuery,
});
export type SessionsSearchQuery = Static<typeof SessionsSearchQuery>;

export const SessionSearchRow = Type.Object({
  session_id: Type.String({ description: '32 hexadecimal characters; GET /v1/query/session?session_id= has its timeline' }),
  started_at: IsoTime,
  ended_at: IsoTime,
  duration_ms: Type.Integer(),
  pages: Type.Array(Type.String(), { description: 'Pages viewed, in order' }),
  page_count: Type.Integer({ description: 'Pageviews' }),
  signals: Type.Record(Type.String(), Type.Integer(), { description: 'Signal count per signal type' }),
  signal_count: Type.Integer(),
  friction_weight: Type.Number({ description: 'Sum of weight x confidence of the session\'s signals, rounded to one decimal (weights as scoring resolves them when the signal was stored)' }),
  converted: Type.Boolean(),
  device: Nullable(Type.String({ description: `The device class (${DEVICE_TYPES.join(', ')}; tv and others as the user agent says); null when unknown` })),
  browser: Nullable(Type.String({ description: 'The browser family' })),
  clips: Type.Integer({ description: 'Friction clips recorded in the session (GET /v1/query/clips?session_id= lists them)' }),
  summary: Type.String({ description: 'The session in one line, from its narrative: pages, its heaviest friction moment, how it ended' }),
});

export const SessionSearchList = Type.Object({
  sessions: Type.Array(SessionSearchRow),
  total: Type.Integer({ description: `Sessions matching, counted up to ${SESSIONS_TOTAL_CAP.toLocaleString('en-US')}` }),
  total_capped: Type.Boolean({ description: `True when more than ${SESSIONS_TOTAL_CAP.toLocaleString('en-US')} sessions match: total is then the cap, and pages go on past it` }),
  offset: Type.Integer(), limit: Type.Integer(),
  window_from: IsoTime, window_to: IsoTime,
});
