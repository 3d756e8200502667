// What an operator needs: when each key was last used, the request id and client address of
// every audit row (the log is read newest first through 0001's org/time index), replies kept for idempotent
// retries, and a webhook's previous secret while a rotation's grace period runs.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('api_keys').addColumn('last_used_at', 'bigint').execute();

  await db.schema.alterTable('audit_log').addColumn('request_id', 'text').execute();
  await db.schema.alterTable('audit_log').addColumn('ip', 'text').execute();

  await db.schema.alterTable('webhooks').addColumn('previous_secret_enc', 'text').execute();
  await db.schema.alterTable('webhooks').addColumn('previous_secret_expires_at', 'bigint').execute();

  await db.schema.createTable('idempotency_keys')
    .addColumn('credential', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('status_code', 'integer')
    .addColumn('response', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['credential', 'key'])
    .execute();
  await db.schema.createIndex('idempotency_keys_created').on('idempotency_keys').column('created_at').execute();
}
