// OAuth 2.1 for the MCP endpoint (issue 30, item 8). Two tables:
// - oauth_records: what the authorization server (oidc-provider, features/oauth) keeps: clients
//   registered dynamically, interactions, its sessions, grants, codes and tokens. Keyed by the
//   model and an HMAC of the record's id (for a token, the id IS the token), so the store never
//   holds a usable token; the payload is sealed (AES-256-GCM), since a client's holds its secret.
// - oauth_grants: what the person chose on the consent screen (org, one site or all, read or
//   read-and-write) for one grant, listed and revoked from settings.
import type { Kysely } from 'kysely';

const ms = 'bigint' as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createTable('oauth_records')
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('id_hash', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('grant_id', 'text')
    .addColumn('uid_hash', 'text')
    .addColumn('expires_at', ms)
    .addColumn('consumed_at', ms)
    .addPrimaryKeyConstraint('oauth_records_pk', ['model', 'id_hash'])
    .execute();
  await db.schema.createIndex('oauth_records_grant').on('oauth_records').column('grant_id').execute();
  await db.schema.createIndex('oauth_records_uid').on('oauth_records').column('uid_hash').execute();
  await db.schema.createIndex('oauth_records_expires').on('oauth_records').column('expires_at').execute();

  await db.schema.createTable('oauth_grants')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('grant_id', 'text', (c) => c.notNull().unique())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('client_name', 'text', (c) => c.notNull())
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id').onDelete('cascade'))
    .addColumn('site_id', 'text')
    .addColumn('access', 'text', (c) => c.notNull())
    .addColumn('created_at', ms, (c) => c.notNull())
    .addColumn('last_used_at', ms)
    .addColumn('revoked_at', ms)
    .execute();
  await db.schema.createIndex('oauth_grants_org').on('oauth_grants').columns(['org_id', 'created_at']).execute();
  await db.schema.createIndex('oauth_grants_user').on('oauth_grants').columns(['user_id', 'created_at']).execute();
}
