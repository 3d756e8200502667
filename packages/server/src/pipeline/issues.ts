// Pure: UX issue clustering, titles and severity (DOMAIN.md section 4), and the verification
// verdicts. Loading and saving are in cluster-step.ts and verify-step.ts.
import { createHash } from 'node:crypto';
import { tierOf, type Tier } from '../domain/signals.ts';
import type { Severity } from '../domain/statuses.ts';
import { HOUR_MS, DAY_MS } from '../domain/time.ts';

export const CLUSTER_WINDOW_MS = DAY_MS;
export const CLUSTER_MIN_FIRES = 3;
export const CLUSTER_MIN_SESSIONS = 2;


export function fingerprint(siteId: string, page: string, type: string, element: string): string {
  return createHash('sha256').update(JSON.stringify([siteId, page, type, element])).digest('hex').slice(0, 32);
}

/** A cluster becomes an issue with at least 3 fires from at least 2 sessions. */
export const isCluster = (fires: number, sessions: number) => fires >= CLUSTER_MIN_FIRES && sessions >= CLUSTER_MIN_SESSIONS;

const TITLES: Record<string, string> = {
  rage_click: 'Rage clicks', dead_click: 'Dead clicks', disabled_element_attempt: 'Clicks on a disabled control',
  form_restart: 'Form restarts', form_friction: 'Form friction', form_validation_loop: 'Validation loops',
  error_encounter: 'Errors', form_abandonment: 'Abandoned forms', u_turn_navigation: 'U-turns',
  dead_end_submit: 'Submits with no response',
};

/** e.g. "Rage clicks on 'Pay now' (button.pay) on /checkout". */
export function issueTitle(type: string, label: string | null, selector: string, page: string): string {
  const what = TITLES[type] ?? `${type.charAt(0).toUpperCase()}${type.slice(1).replace(/_/g, ' ')}`;
  const target = label && selector ? `'${label}' (${selector})` : label ? `'${label}'` : selector;
  return target ? `${what} on ${target} on ${page}` : `${what} on ${page}`;
}

/** Paths whose friction costs most: checkout, cart, pricing, signup, login, billing, onboarding. */
export const IMPORTANT_PAGE = /(^|\/)(checkout|cart|basket|pricing|plans|signup|sign-up|register|login|log-in|signin|sign-in|billing|payment|subscribe|onboarding)(\/|$)/i;

export interface SeverityInput {
  type: string;
  weight: number;
  /** Users affected by this issue's signals, and users active on its page, in the last 24 hours. */
  affectedUsers: number;
  pageActiveUsers: number;
  /** Signals of the issue in the last 24 hours. */
  fires24h: number;
  page: string;
  /** Share (0..1) of affected sessions that converted or showed purchase intent. */
  revenueShare: number;
  /** Share (0..1) of the issue's signals since it was first seen that happened in the last 48 hours. */
  recentShare: number;
}

const TIER_POINTS: Record<string, number> = { 1: 30, 2: 20, 3: 10, revenue: 30 };

/**
 * Severity score 0-100, the sum of:
 * - type, up to 40: 30 for tier 1 and revenue types, 20 for tier 2, 10 for tier 3 and unknown
 *   types, plus weight / 40 x 10 (capped at 10);
 * - reach, up to 25: the share of the page's active users affected x 25;
 * - volume, up to 15: log10(1 + fires in 24 h) / log10(1001) x 15 (1000 fires is the maximum);
 * - page importance, 10 on checkout, cart, pricing, signup, login, billing and onboarding paths;
 * - revenue exposure, up to 5: the share of affected sessions that converted or showed intent x 5;
 * - recency, up to 5: the share of all its signals that fell in the last 48 hours x 5.
 */
export function severityScore(input: SeverityInput): number {
  const tier: Tier | null = tierOf(input.type);
  const type = (tier === null ? 10 : TIER_POINTS[String(tier)]) + Math.min(10, (input.weight / 40) * 10);
  const reach = input.pageActiveUsers > 0 ? Math.min(1, input.affectedUsers / input.pageActiveUsers) * 25 : 0;
  const volume = Math.min(15, (Math.log10(1 + input.fires24h) / Math.log10(1001)) * 15);
  const importance = IMPORTANT_PAGE.test(input.page) ? 10 : 0;
  const revenue = Math.min(1, Math.max(0, input.revenueShare)) * 5;
  const recency = Math.min(1, Math.max(0, input.recentShare)) * 5;
  return Math.round(Math.min(100, type + reach + volume + importance + revenue + recency) * 10) / 10;
}

export function severityOf(score: number): Severity {
  if (score >= 75) return 'critical';
  if (score >= 50) return 'high';
  if (score >= 25) return 'medium';
  return 'low';
}

export const VERIFY_MIN_USERS = 50;
export const VERIFY_TIMEOUT_MS = 48 * HOUR_MS;
export const VERIFIED_AT_MOST = 0.3;
export const REGRESSED_AT_LEAST = 0.7;

export const VERDICTS = ['pending', 'verified', 'regressed', 'inconclusive'] as const;
export type Verdict = (typeof VERDICTS)[number];

/**
 * The verdict on a fix: after 50 active users, the after-rate against the before-rate
 * (<= 30 % verified, >= 70 % regressed, between inconclusive); a recurrence that forms a
 * cluster at >= 70 % of the before-rate regresses at once; too few users by 48 hours is
 * inconclusive.
 */
export function verdict(input: {
  beforeRate: number; afterCount: number; afterSessions: number; afterUsers: number; elapsedMs: number;
}): Verdict {
  const afterRate = input.afterUsers > 0 ? input.afterCount / input.afterUsers : 0;
  const recurs = input.afterCount > 0 && afterRate >= REGRESSED_AT_LEAST * input.beforeRate;
  if (recurs && isCluster(input.afterCount, input.afterSessions)) return 'regressed';
  if (input.afterUsers >= VERIFY_MIN_USERS) {
    if (afterRate <= VERIFIED_AT_MOST * input.beforeRate || input.afterCount === 0) return 'verified';
    if (recurs) return 'regressed';
    return 'inconclusive';
  }
  return input.elapsedMs >= VERIFY_TIMEOUT_MS ? 'inconclusive' : 'pending';
}
