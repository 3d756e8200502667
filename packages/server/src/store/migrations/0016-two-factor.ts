// Two-factor sign-in with TOTP (issue 33, item 7). A user's authenticator secret is sealed like
// every stored secret (auth/secrets.ts); confirmed_at null means enrolment was started and not
// yet confirmed with a code; last_step is the last accepted TOTP time step, so a code is never
// accepted twice. Recovery codes are kept only as HMACs. An org may require 2FA of its admins
// ('admins': admin and owner) or of everyone.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  const s = db.schema;
  await s.createTable('user_mfa')
    .addColumn('user_id', 'text', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('totp_secret', 'text', (c) => c.notNull())
    .addColumn('confirmed_at', 'bigint')
    .addColumn('last_step', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull()).execute();

  await s.createTable('user_recovery_codes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('used_at', 'bigint')
    .addColumn('created_at', 'bigint', (c) => c.notNull()).execute();
  await s.createIndex('user_recovery_codes_user').on('user_recovery_codes').columns(['user_id', 'code_hash']).execute();

  await s.alterTable('org_settings').addColumn('require_2fa', 'text', (c) => c.notNull().defaultTo('off')).execute();
}
