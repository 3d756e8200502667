// Housekeeping that runs inside `mallard serve`: expired raw data, audit rows past their own
// retention, deleted sites' data, idempotency answers past their 24 hours and the OAuth server's
// expired records, once at start and
// then every hour; on PostgreSQL it also folds the row counts' per-connection shards
// (store/row-counts.ts). Runs never overlap.
import type { Clock } from '../clock.ts';
import type { Store } from '../store/db.ts';
import { purgeDeletedSites } from './purge-sites.ts';
import { purgeExpiredRawData } from './retention.ts';
import { purgeExpiredAudit } from './audit-retention.ts';
import { jobFailure, runPeriodically, type JobLog, type Periodic } from './periodic.ts';
import { HOUR_MS } from '../domain/time.ts';
import { purgeExpiredIdempotencyKeys } from '../store/idempotency.ts';
import { foldRowCounts } from '../store/row-counts.ts';
import { purgeExpiredOAuthRecords } from '../store/oauth-records.ts';

export const MAINTENANCE_INTERVAL_MS = HOUR_MS;

/** Days kept: raw data (MALLARD_RETENTION_DAYS) and audit rows (MALLARD_AUDIT_RETENTION_DAYS). */
export interface Retention { rawDays: number; auditDays: number }

export function startMaintenance(store: Store, clock: Clock, retention: Retention, log: JobLog): Periodic {
  return runPeriodically(MAINTENANCE_INTERVAL_MS, () => maintain(store, clock, retention, log), jobFailure(store.faults, log, 'maintenance failed'), { now: true });
}

/** One maintenance run. */
export async function maintain(store: Store, clock: Clock, retention: Retention, log: JobLog) {
  const expired = await purgeExpiredRawData(store, clock.now(), retention.rawDays);
  const audit = await purgeExpiredAudit(store.db, clock.now(), retention.auditDays);
  const deleted = await purgeDeletedSites(store);
  const idempotency = await purgeExpiredIdempotencyKeys(store.db, clock.now());
  const oauth = await purgeExpiredOAuthRecords(store.db, clock.now());
  if (expired + audit + deleted + idempotency + oauth > 0) log.info({ expired, audit, deleted, idempotency, oauth }, 'maintenance removed rows');
  if (store.dialect === 'postgres') await foldRowCounts(store.db);
}
