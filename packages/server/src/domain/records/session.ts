// The session as GET /v1/query/session (and the MCP session resource, tool and prompt) returns
// it. The sessions search lists a shorter row of its own, whose times come from sessionSpan too.
import { Type, type Static } from '@sinclair/typebox';
import { iso } from '../../clock.ts';
import type { SessionsTable } from '../../store/tables.ts';
import { IsoTime, Nullable } from '../schema-parts.ts';

export const SessionRecord = Type.Object({
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
export type SessionRecord = Static<typeof SessionRecord>;

/** When the session started and ended, and how long it lasted. */
export const sessionSpan = (row: Pick<SessionsTable, 'first_seen_at' | 'last_seen_at'>) => ({
  started_at: iso(row.first_seen_at), ended_at: iso(row.last_seen_at), duration_ms: row.last_seen_at - row.first_seen_at,
});

/** The columns the record is built from. */
type SessionRow = Pick<SessionsTable, 'sid' | 'visitor_id' | 'user_ref' | 'environment' | 'first_seen_at' | 'last_seen_at' | 'entry_page'
  | 'exit_page' | 'pages' | 'page_count' | 'event_count' | 'signal_count' | 'signal_counts' | 'device_type' | 'browser' | 'os'
  | 'viewport_bucket' | 'app_version' | 'referrer_host' | 'converted'>;

export function toSessionRecord(s: SessionRow): SessionRecord {
  return {
    session_id: s.sid, visitor_id: s.visitor_id, user_ref: s.user_ref, environment: s.environment, ...sessionSpan(s),
    entry_page: s.entry_page, exit_page: s.exit_page, pages: JSON.parse(s.pages) as string[], page_count: s.page_count,
    event_count: s.event_count, signal_count: s.signal_count, signal_counts: JSON.parse(s.signal_counts) as Record<string, number>,
    device_type: s.device_type, browser: s.browser, os: s.os, viewport_bucket: s.viewport_bucket, app_version: s.app_version,
    referrer_host: s.referrer_host, converted: s.converted === 1,
  };
}
