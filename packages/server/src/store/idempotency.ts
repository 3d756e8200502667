// Replies kept for idempotent retries (the Idempotency-Key header on POST /v1/manage/*): one
// row per (credential, key), claimed before the work and filled with the answer after it.
import type { Kysely } from 'kysely';
import type { Database } from './tables.ts';

/** How long a key's answer is replayed. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** A claim with no answer after this long is taken to be abandoned (its process died). */
export const IDEMPOTENCY_ABANDONED_MS = 60 * 1000;

export type Claim =
  | { kind: 'claimed' }
  | { kind: 'replay'; statusCode: number; response: string }
  | { kind: 'mismatch' }
  | { kind: 'in_progress' };

/** Claims (credential, key) for a request, or says what an earlier request with the same key left. */
export async function claimIdempotencyKey(db: Kysely<Database>, credential: string, key: string, requestHash: string, now: number): Promise<Claim> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const inserted = await db.insertInto('idempotency_keys')
      .values({ credential, key, request_hash: requestHash, status_code: null, response: null, created_at: now })
      .onConflict((oc) => oc.columns(['credential', 'key']).doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1) return { kind: 'claimed' };
    const row = await db.selectFrom('idempotency_keys').selectAll().where('credential', '=', credential).where('key', '=', key).executeTakeFirst();
    if (!row) continue; // released in between: claim again
    const expired = now - row.created_at >= IDEMPOTENCY_TTL_MS;
    const abandoned = row.status_code === null && now - row.created_at >= IDEMPOTENCY_ABANDONED_MS;
    if (expired || abandoned) {
      // Only the request that removes exactly this row claims the key; a racing one sees the new row.
      await db.deleteFrom('idempotency_keys').where('credential', '=', credential).where('key', '=', key)
        .where('created_at', '=', row.created_at).execute();
      continue;
    }
    if (row.request_hash !== requestHash) return { kind: 'mismatch' };
    if (row.status_code === null || row.response === null) return { kind: 'in_progress' };
    return { kind: 'replay', statusCode: row.status_code, response: row.response };
  }
  return { kind: 'in_progress' };
}

export async function storeIdempotentAnswer(db: Kysely<Database>, credential: string, key: string, statusCode: number, response: string) {
  await db.updateTable('idempotency_keys').set({ status_code: statusCode, response })
    .where('credential', '=', credential).where('key', '=', key).where('status_code', 'is', null).execute();
}

/** Frees a key whose request failed, so a retry does the work. */
export async function releaseIdempotencyKey(db: Kysely<Database>, credential: string, key: string) {
  await db.deleteFrom('idempotency_keys').where('credential', '=', credential).where('key', '=', key).where('status_code', 'is', null).execute();
}

/** Housekeeping: answers past their 24 hours. */
export async function purgeExpiredIdempotencyKeys(db: Kysely<Database>, now: number): Promise<number> {
  const done = await db.deleteFrom('idempotency_keys').where('created_at', '<', now - IDEMPOTENCY_TTL_MS).executeTakeFirst();
  return Number(done.numDeletedRows);
}
