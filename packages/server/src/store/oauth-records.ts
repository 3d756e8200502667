// Housekeeping of the OAuth authorization server's records (features/oauth/adapter.ts): a
// record past its expiry is never read again (the adapter checks), so the hourly maintenance
// drops it, in bounded batches as the other purges do (jobs/README.md): expired codes and
// rotated refresh tokens can pile up, after a downtime say, and no delete may hold a long lock.
import type { Kysely } from 'kysely';
import type { Database } from './tables.ts';

export async function purgeExpiredOAuthRecords(db: Kysely<Database>, now: number, batchSize = 1000): Promise<number> {
  let removed = 0;
  for (;;) {
    const expired = await db.selectFrom('oauth_records').select(['model', 'id_hash']).where('expires_at', '<=', now).limit(batchSize).execute();
    // The key is (model, id_hash): one delete per model of the batch.
    for (const model of new Set(expired.map((r) => r.model))) {
      const ids = expired.filter((r) => r.model === model).map((r) => r.id_hash);
      removed += Number((await db.deleteFrom('oauth_records').where('model', '=', model).where('id_hash', 'in', ids).executeTakeFirst()).numDeletedRows);
    }
    if (expired.length < batchSize) return removed;
  }
}
