// Single sign-on with OIDC (issue 33, item 8). An org has at most one identity provider
// connection: its issuer, client id and client secret (sealed like every stored secret,
// auth/secrets.ts), the email domains it claims (a JSON array: how a sign-in finds the org
// from an address), whether first sign-ins create members (jit, with default_role), whether
// members must sign in through it (required; owners keep password sign-in as a break-glass),
// and whether it is on at all.
//
// In-flight sign-ins are rows, not a sealed cookie: a row is claimed once (used_at), so a state
// replayed after the first callback is refused even within its ten minutes, which a
// self-contained cookie cannot promise. The browser still carries the state in a SameSite=Lax
// cookie (http/routes/sso.ts) that must match, so a callback URL sent to someone else
// signs nobody in. The state is kept only as an HMAC, the PKCE verifier sealed.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  const s = db.schema;
  await s.createTable('sso_connections')
    .addColumn('org_id', 'text', (c) => c.primaryKey().references('orgs.id').onDelete('cascade'))
    .addColumn('issuer', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('client_secret', 'text', (c) => c.notNull())
    .addColumn('email_domains', 'text', (c) => c.notNull())
    .addColumn('jit', 'integer', (c) => c.notNull())
    .addColumn('default_role', 'text', (c) => c.notNull())
    .addColumn('required', 'integer', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull()).execute();

  await s.createTable('sso_logins')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id').onDelete('cascade'))
    .addColumn('state_hash', 'text', (c) => c.notNull().unique())
    .addColumn('nonce', 'text', (c) => c.notNull())
    .addColumn('code_verifier', 'text', (c) => c.notNull())
    .addColumn('email', 'text')
    .addColumn('return_to', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('used_at', 'bigint').execute();
  await s.createIndex('sso_logins_expires').on('sso_logins').column('expires_at').execute();
}
