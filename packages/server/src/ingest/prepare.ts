// Pure: a validated batch plus the time -> rows to store and per-event rejections.
// No I/O here, so every rule is tested with tables of cases.
import { createHash } from 'node:crypto';
import { clampConfidence } from '../domain/signals.ts';
import { cleanLabel, cleanSelector, heatmapPoint, hostOf, normalizePage, pageFromUrl, type PageGroup } from '../domain/normalize.ts';
import { firstFailure } from '../domain/validation-error.ts';
import { EVENT_CHECKS, type Batch, type EventType, type WireEvent } from './schemas.ts';
import { DAY_MS } from '../domain/time.ts';

/** Imports may carry original timestamps up to this old. */
export const IMPORT_MAX_AGE_MS = 90 * DAY_MS;
/** Live events older than this after clock correction are refused (a queue held for a week is not live). */
export const LIVE_MAX_AGE_MS = 7 * DAY_MS;
/** Tolerance for clocks slightly ahead. */
export const FUTURE_TOLERANCE_MS = 5 * 60 * 1000;
export const PROPS_MAX_BYTES = 8 * 1024;

export interface Rejection { index: number; code: string; field?: string }

export interface PreparedEvent {
  index: number;
  dedupeKey: string;
  type: EventType;
  page: string;
  occurredAt: number;
  clientTs: number;
  name: string | null;
  signalType: string | null;
  element: string | null;
  label: string | null;
  props: string | null;
  referrerPage: string | null;
  referrerHost: string | null;
  userRef: string | null;
  signal: { confidence: number; rx: number | null; ry: number | null; vx: number | null; vy: number | null } | null;
}

export interface PrepareContext {
  now: number;
  import: boolean;
  pageGroups: readonly PageGroup[];
}

/**
 * Server time for each event. Live batches shift every event by (server now - batch ts), so
 * a wrong client clock moves the whole batch but keeps the gaps between its events.
 * Imports keep their timestamps.
 */
export function correctedTime(eventTs: number, batchTs: number, ctx: PrepareContext): number {
  return Math.round(ctx.import ? eventTs : eventTs + (ctx.now - batchTs));
}

/** Without an SDK id, identical content at the identical client time is the same event. */
export function dedupeKeyOf(event: WireEvent): string {
  if (event.id) return `id:${event.id.toLowerCase()}`;
  const parts = [
    event.ts, event.type,
    event.type === 'signal' ? event.signal_type : '', event.type === 'signal' ? event.element ?? '' : '',
    event.type === 'track' ? event.name : '',
  ];
  return `h:${createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 32)}`;
}

export function prepareEvents(batch: Batch, ctx: PrepareContext): { events: PreparedEvent[]; rejections: Rejection[] } {
  const events: PreparedEvent[] = [];
  const rejections: Rejection[] = [];
  const fallbackPage = batch.url ? pageFromUrl(batch.url, ctx.pageGroups) : null;
  const seen = new Set<string>();

  batch.events.forEach((raw, index) => {
    const reject = (code: string, field?: string) => rejections.push(field ? { index, code, field } : { index, code });
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return reject('invalid_event');
    const type = (raw as { type?: unknown }).type;
    if (typeof type !== 'string' || !(type in EVENT_CHECKS)) return reject('unknown_event_type', 'type');
    const check = EVENT_CHECKS[type as EventType];
    if (!check.Check(raw)) return reject('invalid_field', firstFailure(check, raw).field);
    const event = raw as WireEvent;

    const page = event.page !== undefined ? normalizePage(event.page, ctx.pageGroups) : fallbackPage;
    if (!page) return reject('invalid_page', 'page');

    const occurredAt = correctedTime(event.ts, batch.ts, ctx);
    const oldest = ctx.now - (ctx.import ? IMPORT_MAX_AGE_MS : LIVE_MAX_AGE_MS);
    if (!Number.isFinite(occurredAt) || occurredAt < oldest || occurredAt > ctx.now + FUTURE_TOLERANCE_MS) {
      return reject('ts_out_of_range', 'ts');
    }

    let props: string | null = null;
    if (event.type === 'track' && event.props) {
      props = JSON.stringify(event.props);
      if (Buffer.byteLength(props) > PROPS_MAX_BYTES) return reject('props_too_large', 'props');
    }

    const dedupeKey = dedupeKeyOf(event);
    if (seen.has(dedupeKey)) return; // the same event twice in one batch is stored once
    seen.add(dedupeKey);

    const prepared: PreparedEvent = {
      index, dedupeKey, type: event.type, page, occurredAt, clientTs: Math.round(event.ts),
      name: null, signalType: null, element: null, label: null, props, referrerPage: null,
      referrerHost: null, userRef: null, signal: null,
    };
    switch (event.type) {
      case 'pageview':
        prepared.referrerPage = event.referrer_page ? normalizePage(event.referrer_page, ctx.pageGroups) : null;
        prepared.referrerHost = hostOf(event.referrer);
        break;
      case 'signal':
        prepared.signalType = event.signal_type;
        prepared.element = cleanSelector(event.element);
        prepared.label = cleanLabel(event.label);
        prepared.signal = { confidence: clampConfidence(event.confidence), ...heatmapPoint(event) };
        if (event.count !== undefined || event.duration_ms !== undefined) {
          prepared.props = JSON.stringify({ count: event.count, duration_ms: event.duration_ms });
        }
        break;
      case 'track':
        prepared.name = event.name;
        break;
      case 'identify':
        prepared.userRef = event.user_ref;
        break;
    }
    events.push(prepared);
  });
  return { events, rejections };
}
