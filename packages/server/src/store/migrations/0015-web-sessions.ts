// Dashboard sessions in an HttpOnly cookie (issue 33, item 5): the cookie carries a random
// token, this table its HMAC, so a session can be renewed while used and ended (its row
// deleted) at sign-out or a password change. `users.password_changed_at` also ends user JWTs issued before it.
import type { Kysely } from 'kysely';

const ms = 'bigint' as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createTable('web_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id').onDelete('cascade'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('created_at', ms, (c) => c.notNull())
    .addColumn('last_seen_at', ms, (c) => c.notNull())
    .addColumn('expires_at', ms, (c) => c.notNull())
    .addColumn('absolute_expires_at', ms, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('web_sessions_user').on('web_sessions').column('user_id').execute();
  await db.schema.alterTable('users').addColumn('password_changed_at', ms).execute();
}
