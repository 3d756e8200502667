// One pipeline cycle for one site as of a time T: claim the site, score pages, refresh
// deploys' confusion_after, cluster issues, decide verifications, prioritise issues, evaluate
// alert rules, release. Delivery runs apart, from the outbox.
// Every step is a function of the stored data and T; the wall clock is used only for the
// claim's lease, so two processes never run the same site at once.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import type { Database } from '../store/tables.ts';
import { scorePagesStep, scoreSpans, type ScoreStepResult } from './score-pages.ts';
import { clusterStep, type ClusterStepResult } from './cluster-step.ts';
import { verifyStep, type VerifyStepResult } from './verify-step.ts';
import { prioritiseStep, type PrioritiseStepResult } from './prioritise-step.ts';
import { alertStep, type AlertStepResult } from './alert-step.ts';
import { HOUR_MS } from '../domain/time.ts';

/** A claim lapses after this long, so a crashed process never blocks a site for good. */
export const CLAIM_LEASE_MS = 10 * 60 * 1000;
/** Deploys get confusion_after from the first cycle this long after them... */
export const DEPLOY_SETTLE_MS = 5 * 60 * 1000;
/** ...and keep refreshing it for this long. */
export const DEPLOY_TRACK_MS = 48 * HOUR_MS;

export interface CycleOptions { intervalMs: number; clock: Clock; holder?: string }

export type CycleResult =
  | { siteId: string; cycleAt: number; status: 'done'; scores: ScoreStepResult; deploysUpdated: number; issues: ClusterStepResult; verifications: VerifyStepResult; priorities: PrioritiseStepResult; alerts: AlertStepResult }
  | { siteId: string; cycleAt: number; status: 'busy' };

/**
 * Takes the site for a cycle: free, lapsed, or already this holder's. The last is a run whose
 * release met a database outage: its scheduler retries with the same holder (runs of one
 * scheduler never overlap) rather than wait out the lease.
 */
export async function claimSite(db: Kysely<Database>, siteId: string, holder: string, cycleAt: number, now: number): Promise<boolean> {
  const claimed = await db.insertInto('pipeline_claims').values({ site_id: siteId, holder, cycle_at: cycleAt, expires_at: now + CLAIM_LEASE_MS })
    .onConflict((oc) => oc.column('site_id').doUpdateSet({ holder, cycle_at: cycleAt, expires_at: now + CLAIM_LEASE_MS })
      .where((eb) => eb.or([eb('pipeline_claims.expires_at', '<=', now), eb('pipeline_claims.holder', '=', holder)])))
    .returning('holder').executeTakeFirst();
  return claimed?.holder === holder;
}

export async function releaseSite(db: Kysely<Database>, siteId: string, holder: string) {
  await db.deleteFrom('pipeline_claims').where('site_id', '=', siteId).where('holder', '=', holder).execute();
}

/**
 * Deploys between 5 minutes and 48 hours old get their after-score from [deploy, T); one whose
 * window has no active user yet keeps it null (no post-deploy data is not a score of 0).
 * All of them come from one read of [oldest deploy, T): a site that deploys often would
 * otherwise have the same rows scanned once per deploy, every cycle.
 */
export async function refreshDeploysAfter(db: Kysely<Database>, siteId: string, cycleAt: number): Promise<number> {
  const deploys = await db.selectFrom('deploys').select(['id', 'deployed_at', 'confusion_before'])
    .where('site_id', '=', siteId)
    .where('deployed_at', '<=', cycleAt - DEPLOY_SETTLE_MS)
    .where('deployed_at', '>=', cycleAt - DEPLOY_TRACK_MS)
    .execute();
  const scores = await scoreSpans(db, siteId, deploys.map((d) => d.deployed_at), cycleAt);
  let updated = 0;
  for (const deploy of deploys) {
    const after = scores.get(deploy.deployed_at)!;
    if (after.pages.length === 0) continue;
    await db.updateTable('deploys').set({
      confusion_after: after.overall,
      delta: Math.round((after.overall - deploy.confusion_before) * 10) / 10,
      pages_after: JSON.stringify(after.pages),
      after_computed_at: cycleAt,
    }).where('id', '=', deploy.id).execute();
    updated++;
  }
  return updated;
}

export async function runCycle(db: Kysely<Database>, siteId: string, cycleAt: number, options: CycleOptions): Promise<CycleResult> {
  const holder = options.holder ?? randomUUID();
  if (!(await claimSite(db, siteId, holder, cycleAt, options.clock.now()))) return { siteId, cycleAt, status: 'busy' };
  try {
    const scores = await scorePagesStep(db, siteId, cycleAt, options.intervalMs);
    const deploysUpdated = await refreshDeploysAfter(db, siteId, cycleAt);
    const issues = await clusterStep(db, siteId, cycleAt);
    const verifications = await verifyStep(db, siteId, cycleAt);
    const priorities = await prioritiseStep(db, siteId, cycleAt);
    const alerts = await alertStep(db, siteId, cycleAt);
    return { siteId, cycleAt, status: 'done', scores, deploysUpdated, issues, verifications, priorities, alerts };
  } finally {
    await releaseSite(db, siteId, holder);
  }
}

/** Cycle times are multiples of the interval in UTC. */
export const cycleTimeAt = (ms: number, intervalMs: number) => Math.floor(ms / intervalMs) * intervalMs;

export async function activeSiteIds(db: Kysely<Database>): Promise<string[]> {
  const rows = await db.selectFrom('sites').select('id').where('deleted_at', 'is', null).orderBy('id').execute();
  return rows.map((r) => r.id);
}
