// The audit log has its own retention (MALLARD_AUDIT_RETENTION_DAYS, a year by default, longer
// than raw data's): older rows are deleted in bounded batches by the hourly maintenance.
import type { Kysely } from 'kysely';
import { DAY_MS } from '../domain/time.ts';
import type { Database } from '../store/tables.ts';

export async function purgeExpiredAudit(db: Kysely<Database>, now: number, retentionDays: number, batchSize = 5000): Promise<number> {
  const cutoff = now - retentionDays * DAY_MS;
  let removed = 0;
  for (;;) {
    const expired = db.selectFrom('audit_log').select('id').where('created_at', '<', cutoff).limit(batchSize);
    const count = Number((await db.deleteFrom('audit_log').where('id', 'in', expired).executeTakeFirst()).numDeletedRows);
    removed += count;
    if (count < batchSize) return removed;
  }
}
