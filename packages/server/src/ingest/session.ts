// Pure: how a batch's new events change its session row.
import Bowser from 'bowser';
import type { Selectable } from 'kysely';
import type { SessionsTable } from '../store/tables.ts';
import type { PreparedEvent } from './prepare.ts';
import { weightResolver } from '../domain/signals.ts';
import { extendPath, type PathEntry } from '../store/session-path.ts';

export type SessionRow = Selectable<SessionsTable>;

/** The most pages a session row remembers, in order; enough for any real journey. */
export const MAX_SESSION_PAGES = 500;

export interface BatchMeta {
  siteId: string;
  sid: string;
  visitorId: string | null;
  environment: string;
  userAgent: string | null;
  viewportWidth: number | null;
  appVersion: string | null;
  conversionEvents: ReadonlySet<string>;
  /** A signal type's weight for the session's friction weight; absent: the registry's (domain/signals.ts). */
  signalWeight?: (type: string) => number;
}

const registryWeight = weightResolver();

export function viewportBucket(width: number | null): string | null {
  if (width === null || width <= 0) return null;
  if (width < 576) return 'xs';
  if (width < 768) return 'sm';
  if (width < 992) return 'md';
  if (width < 1200) return 'lg';
  return 'xl';
}

export function describeAgent(ua: string | null): { device: string | null; browser: string | null; os: string | null } {
  if (!ua) return { device: null, browser: null, os: null };
  const parsed = Bowser.parse(ua);
  return {
    device: parsed.platform.type || null,
    browser: parsed.browser.name || null,
    os: parsed.os.name || null,
  };
}

/**
 * The device class clips and snapshots are filed under (desktop, tablet, mobile): the user
 * agent's, with anything else (a TV, an unknown agent) as desktop. The public SDK config names
 * it from the same user agent, so the SDK needs no device rules of its own.
 */
export function deviceClass(ua: string | null): 'desktop' | 'tablet' | 'mobile' {
  const { device } = describeAgent(ua);
  return device === 'mobile' || device === 'tablet' ? device : 'desktop';
}

/** The session after the batch: new events only (duplicates were filtered out before). */
export function mergeSession(existing: SessionRow, fresh: readonly PreparedEvent[], meta: BatchMeta): SessionRow {
  const next: SessionRow = { ...existing };
  const ordered = [...fresh].sort((a, b) => a.occurredAt - b.occurredAt || a.index - b.index);
  const pages = JSON.parse(existing.pages) as string[];
  const counts = JSON.parse(existing.signal_counts) as Record<string, number>;
  // Pageviews from before everything stored so far (a batch that arrived late, e.g. an SDK
  // retry after a later batch got through) go in front, and the first of them is the entry.
  const known = existing.event_count > 0;
  const weight = meta.signalWeight ?? registryWeight;
  const earlier: string[] = [];
  // The session's path (migration 0022): the pageviews, track events and signals the funnel walks.
  const path: PathEntry[] = [];
  // A new session's times come from its own events, not from the row stub.
  if (!known && ordered.length > 0) next.first_seen_at = next.last_seen_at = ordered[0].occurredAt;

  for (const event of ordered) {
    if (event.occurredAt < next.first_seen_at) next.first_seen_at = event.occurredAt;
    if (event.occurredAt >= next.last_seen_at) {
      next.last_seen_at = event.occurredAt;
      next.exit_page = event.page;
    }
    next.event_count++;
    if (event.type === 'pageview') {
      if (known && event.occurredAt < existing.first_seen_at) earlier.push(event.page);
      else if (pages.length < MAX_SESSION_PAGES) pages.push(event.page);
      next.page_count++;
      path.push([event.occurredAt, 'p', event.page]);
      next.entry_page ??= event.page;
      if (event.referrerHost && !next.referrer_host) next.referrer_host = event.referrerHost;
    } else if (event.type === 'signal') {
      next.signal_count++;
      counts[event.signalType!] = (counts[event.signalType!] ?? 0) + 1;
      // sum(weight x cf), kept on the row so the sessions search sorts by a column (migration 0018).
      next.friction_weight += weight(event.signalType!) * (event.signal?.confidence ?? 1);
      // As the signals table holds them: a row per signal event that carries a signal.
      if (event.signal) path.push([event.occurredAt, 's', event.signalType!, event.page]);
    } else if (event.type === 'track') {
      path.push([event.occurredAt, 'e', event.name!, event.page]);
      if (meta.conversionEvents.has(event.name!)) next.converted = 1;
    } else if (event.type === 'identify') {
      next.user_ref = event.userRef;
    }
  }
  if (earlier.length > 0) next.entry_page = earlier[0];
  next.entry_page ??= ordered[0]?.page ?? null;
  next.pages = JSON.stringify([...earlier, ...pages].slice(0, MAX_SESSION_PAGES));
  next.signal_counts = JSON.stringify(counts);
  next.path = extendPath(existing.path, path);
  next.visitor_id ??= meta.visitorId;
  next.app_version = meta.appVersion ?? next.app_version;
  if (!next.device_type && !next.browser) {
    const agent = describeAgent(meta.userAgent);
    next.device_type = agent.device;
    next.browser = agent.browser;
    next.os = agent.os;
  }
  next.viewport_bucket ??= viewportBucket(meta.viewportWidth);
  return next;
}
