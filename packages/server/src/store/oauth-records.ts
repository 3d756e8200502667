// Housekeeping of the OAuth authorization server's records (features/oauth/adapter.ts): a
// record past its expiry is never read again (the adapter checks), so the hourly maintenance drops it.
import type { Kysely } from 'kysely';
import type { Database } from './tables.ts';

export async function purgeExpiredOAuthRecords(db: Kysely<Database>, now: number): Promise<number> {
  const result = await db.deleteFrom('oauth_records').where('expires_at', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}
