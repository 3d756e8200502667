// The clips wire format (POST /v1/ingest/clips) and the read routes' schemas, defined once.
// Unknown fields of an upload are ignored, as in ingest batches; known fields are validated.
import { Type, type Static } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { CLIP_KINDS, CLIP_REFUSALS } from '../../domain/clips.ts';
import { DEVICE_TYPES, ReadFilterQuery } from '../../domain/read-window.ts';
import { IsoTime, OneOf, PagingQuery, SiteIdParam } from '../../domain/schema-parts.ts';

/** The body as sent on the wire (gzip or not) at most 1 MiB; once decompressed at most 8 MiB. */
export const CLIP_WIRE_LIMIT = 1024 * 1024;
export const CLIP_BODY_LIMIT = 8 * 1024 * 1024;
/** rrweb's snapshot nests two levels per DOM level: deeper than the API's other bodies, still bounded. */
export const CLIP_MAX_DEPTH = 1000;
export const MAX_CLIP_EVENTS = 50_000;
export const MAX_CLIP_SIGNALS = 50;
/** A clip spans at most this long (10 s before its signal to 5 s after, and some slack). */
export const MAX_CLIP_SPAN_MS = 20_000;
/** rrweb's FullSnapshot event type: a snapshot upload must hold one. */
export const RRWEB_FULL_SNAPSHOT = 2;

const Hex32 = Type.String({ pattern: '^[0-9a-fA-F]{32}$' });
const ClientId = Type.String({ pattern: '^[0-9a-fA-F]{16,32}$' });

/** An rrweb event: its type and time are checked, the rest is stored as recorded. */
const RrwebEvent = Type.Object({
  type: Type.Integer({ minimum: 0, maximum: 100 }),
  timestamp: Type.Number({ minimum: 0 }),
}, { description: 'An rrweb event (type, timestamp, data), stored as sent' });

export const ClipUpload = Type.Object({
  key: Type.Optional(Type.String({ maxLength: 128, description: 'The publishable key (or Authorization: Bearer)' })),
  site_id: Type.Optional(Type.String({ maxLength: 64, description: 'The site, for an org-scoped secret key with ingest:write' })),
  sid: Type.String({ ...Hex32, description: 'The session the clip belongs to: it must be a stored session of the key\'s site' }),
  vid: Type.Optional(Hex32),
  env: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_.-]+$' })),
  id: Type.String({ ...ClientId, description: 'Made by the SDK (16 to 32 hex characters); a retry with the same id stores nothing twice' }),
  kind: OneOf(CLIP_KINDS, 'clip: seconds around friction signals; snapshot: the page as laid out (rrweb Meta + FullSnapshot)'),
  page: Type.String({ minLength: 1, maxLength: 2048, description: 'The page path (normalized as ingest stores pages)' }),
  meta: Type.Optional(Type.Object({
    viewport_w: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000 })),
    viewport_h: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000 })),
    ua: Type.Optional(Type.String({ maxLength: 1024 })),
  })),
  signal_ids: Type.Optional(Type.Array(ClientId, {
    maxItems: MAX_CLIP_SIGNALS, uniqueItems: true,
    description: `Event ids of signal events this session already sent: 1 to ${MAX_CLIP_SIGNALS} for a clip, none for a snapshot`,
  })),
  started_at: Type.Number({ minimum: 0, description: 'ms since epoch (client clock)' }),
  ended_at: Type.Number({ minimum: 0, description: `ms since epoch; a clip spans at most ${MAX_CLIP_SPAN_MS / 1000} s` }),
  width: Type.Integer({ minimum: 0, maximum: 100_000, description: 'px: the viewport (clip) or the document\'s scroll width (snapshot)' }),
  height: Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'px: the viewport (clip) or the document\'s scroll height (snapshot)' }),
  events: Type.Array(RrwebEvent, { minItems: 1, maxItems: MAX_CLIP_EVENTS }),
}, {
  description: 'Unknown fields are ignored; known fields are validated. Sent as application/json or text/plain, normally with Content-Encoding: gzip.',
  examples: [{
    key: 'svc_pub_...', sid: '6f1c2a9e0b3d4c5e8f7a6b5c4d3e2f10', env: 'production', id: '9c2f4e6a8b0d1c3e5f7a9b1d3c5e7f90', kind: 'clip', page: '/checkout',
    meta: { viewport_w: 1280, viewport_h: 720 }, signal_ids: ['a1b2c3d4e5f60718'], started_at: 1763799985000, ended_at: 1763800000000, width: 1280, height: 720,
    events: [{ type: 4, timestamp: 1763799985000, data: { href: 'https://shop.example/checkout', width: 1280, height: 720 } }],
  }],
});
export type ClipUpload = Static<typeof ClipUpload>;
export const checkClipUpload = TypeCompiler.Compile(ClipUpload);

export const ClipUploadResult = Type.Object({
  id: Type.String({ description: 'The upload\'s id, as sent' }),
  stored: Type.Boolean({ description: 'false: acknowledged, not stored (see reason)' }),
  reason: Type.Optional(OneOf(CLIP_REFUSALS, 'duplicate: this id was stored before; budget: the site\'s daily byte budget is spent (stop sending for this page load); element_cap: each of its elements has its clips for the day; snapshot_exists: this page and device class has its snapshot for the day')),
  clip_id: Type.Optional(Type.String({ description: 'The stored clip (a UUID): this upload\'s, or for a duplicate the earlier one' })),
  bytes: Type.Integer({ description: 'The events\' size compressed as stored (or as they would have been)' }),
});

export const ClipsQuery = Type.Object({
  site_id: Type.Optional(SiteIdParam),
  issue_id: Type.Optional(Type.String({ maxLength: 64, description: 'Only clips covering a signal of this issue (its type, on its element and page)' })),
  session_id: Type.Optional(Type.String({ maxLength: 64, pattern: '^[0-9a-fA-F]{32}$', description: 'Only clips of this session (32 hexadecimal characters)' })),
  page: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'Only clips recorded on this page (a path, normalized as ingest stores pages)' })),
  signal_type: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-z][a-z0-9_]*$', description: 'Only clips covering a signal of this type' })),
  device: ReadFilterQuery.device,
  from: Type.Optional(Type.String({ format: 'date-time', maxLength: 40, description: 'ISO 8601 instant within the last 90 days: clips that started here or later' })),
  to: Type.Optional(Type.String({ format: 'date-time', maxLength: 40, description: 'ISO 8601 instant, after from and not in the future: clips that started before it' })),
  ...PagingQuery,
});
export type ClipsQuery = Static<typeof ClipsQuery>;

export const ClipRow = Type.Object({
  id: Type.String({ description: 'UUID; GET /v1/query/clips/{id} has its events' }),
  session_id: Type.String(),
  page: Type.String(),
  device: OneOf(DEVICE_TYPES, 'The device class the clip was filed under'),
  signal_ids: Type.Array(Type.String(), { description: 'The SDK event ids of the signals the clip covers' }),
  signal_types: Type.Array(Type.String(), { description: 'Their signal types, in the same order' }),
  started_at: IsoTime,
  ended_at: IsoTime,
  bytes: Type.Integer({ description: 'Stored size, compressed' }),
});
export const ClipList = Type.Object({ clips: Type.Array(ClipRow), total: Type.Integer(), offset: Type.Integer(), limit: Type.Integer() });

export const ClipIdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
export const ClipDetail = Type.Object({
  ...ClipRow.properties,
  width: Type.Integer({ description: 'px of the viewport the clip was recorded in' }),
  height: Type.Integer(),
  events: Type.Array(Type.Unknown(), { description: 'The rrweb events, as recorded (decompressed)' }),
});

export const PageSnapshotQuery = Type.Object({
  site_id: Type.Optional(SiteIdParam),
  page: Type.String({ minLength: 1, maxLength: 512, description: 'The page path' }),
  device: Type.Optional(Type.Union(DEVICE_TYPES.map((d) => Type.Literal(d)), { description: 'The device class (default desktop)' })),
});
export type PageSnapshotQuery = Static<typeof PageSnapshotQuery>;
export const PageSnapshot = Type.Object({
  page: Type.String(),
  device: OneOf(DEVICE_TYPES),
  width: Type.Integer({ description: 'px: the document\'s scroll width when taken' }),
  height: Type.Integer({ description: 'px: the document\'s scroll height when taken' }),
  taken_at: IsoTime,
  snapshot: Type.Unknown({ description: 'The rrweb FullSnapshot event (type 2), masked in the browser' }),
});

export const ClipUsage = Type.Object({
  site_id: Type.String(),
  clip_retention_days: Type.Integer({ description: 'Days clips and snapshots are kept (default 30)' }),
  effective_clip_retention_days: Type.Integer({ description: 'What retention applies: clip_retention_days, never more than the site\'s raw data is kept' }),
  clip_daily_bytes: Type.Integer({ description: 'The daily (UTC) byte budget of uploads, compressed as stored (default 52428800, 50 MiB)' }),
  clips: Type.Integer({ description: 'Clips stored' }),
  snapshots: Type.Integer({ description: 'Page snapshots stored' }),
  bytes: Type.Integer({ description: 'Bytes stored, compressed' }),
  today_bytes: Type.Integer({ description: 'Bytes stored today (UTC), against clip_daily_bytes' }),
  today_from: IsoTime,
  accepting: Type.Boolean({ description: 'false once today\'s budget is spent' }),
});
