// Friction clips and page snapshots (issue 28): the words and numbers every face shares. What
// the server still wants of a site on a UTC day is decided here (pure): the daily byte budget,
// at most CLIPS_PER_ELEMENT_PER_DAY clips per element, one snapshot per page and device class.
import { DAY_MS } from './time.ts';
import { effectiveRetentionDays } from './retention.ts';

export const CLIP_KINDS = ['clip', 'snapshot'] as const;
export type ClipKind = (typeof CLIP_KINDS)[number];

/** Defaults of a new site (migration 0020 wrote the same into its column defaults). */
export const DEFAULT_CLIP_RETENTION_DAYS = 30;
export const DEFAULT_CLIP_DAILY_BYTES = 50 * 1024 * 1024;
/** Bounds of the per-site settings: a budget of 0 stores nothing; at most 10 GiB a day. */
export const MAX_CLIP_RETENTION_DAYS = 365;
export const MAX_CLIP_DAILY_BYTES = 10 * 1024 * 1024 * 1024;

/** Clips a site keeps per element selector per UTC day: more of the same moment is not watched. */
export const CLIPS_PER_ELEMENT_PER_DAY = 5;
/** The most full elements and taken snapshots the public SDK config lists. */
export const CLIP_CONFIG_LIST_MAX = 500;

/** Why an upload was acknowledged without being stored (the ingest answer's `reason`). */
export const CLIP_REFUSALS = ['duplicate', 'budget', 'element_cap', 'snapshot_exists'] as const;
export type ClipRefusal = (typeof CLIP_REFUSALS)[number];

/** The start of the UTC day holding `now`: budgets count from here. */
export function utcDayStart(now: number): number {
  return Math.floor(now / DAY_MS) * DAY_MS;
}

/** Days a site's clips are kept: its clip retention, never longer than its raw data (sessions, signals) is kept. */
export function effectiveClipRetentionDays(clipDays: number, siteRawDays: number | null, instanceDays: number): number {
  return Math.min(clipDays, effectiveRetentionDays(siteRawDays, instanceDays));
}

/** What the day already holds, as the upload's transaction read it. */
export interface ClipDay {
  /** Bytes (compressed, as stored) of the site's clips and snapshots created today. */
  bytes: number;
  /** The site's budget of bytes a day. */
  budget: number;
  /** Per element selector of this upload's signals, clips already stored today. */
  elementClips: ReadonlyMap<string, number>;
  /** Whether a snapshot of this page and device class was already stored today. */
  snapshotTaken: boolean;
}

/**
 * Whether an upload of `bytes` is stored, or the polite no it gets. A clip is refused once each
 * of its elements has its clips for the day (one that covers a new element is still wanted);
 * signals on no element (an error) are bound by the byte budget only.
 */
export function clipRefusal(kind: ClipKind, bytes: number, elements: readonly string[], day: ClipDay): ClipRefusal | null {
  if (kind === 'snapshot' && day.snapshotTaken) return 'snapshot_exists';
  const named = elements.filter((e) => e !== '');
  if (kind === 'clip' && named.length > 0 && named.length === elements.length
    && named.every((e) => (day.elementClips.get(e) ?? 0) >= CLIPS_PER_ELEMENT_PER_DAY)) return 'element_cap';
  if (day.bytes + bytes > day.budget) return 'budget';
  return null;
}
