// API keys: minted only with a user token (or by the operator at the terminal, `mallard keys`), shown once, stored as
// an HMAC, revoked at once.
import { v7 as uuidv7 } from 'uuid';
import type { Kysely } from 'kysely';
import { iso, isoOrNull } from '../../clock.ts';
import { recordAudit } from '../../audit/record.ts';
import { generateKey, hashKey, keyHint, KEY_TYPE_RULES, type KeyType, type Scope } from '../../auth/api-keys.ts';
import type { Secrets } from '../../auth/secrets.ts';
import { actorOf, type ServiceContext } from '../../domain/context.ts';
import { AppError, invalidInput } from '../../domain/errors.ts';
import { cleanName } from '../../domain/clean-input.ts';
import { siteInScope } from '../../domain/tenancy.ts';
import type { ApiKey, Database } from '../../store/tables.ts';
import type { CreateKeyBody, KeyRecord, KeyStatus, ListKeysQuery } from './schemas.ts';
import { forgetCredentials } from '../../domain/authenticate.ts';

/** As authentication sees it at `now`: revoked first, then expired at or after `expires_at`. */
export const keyStatus = (key: Pick<ApiKey, 'revoked_at' | 'expires_at'>, now: number): KeyStatus =>
  key.revoked_at !== null ? 'revoked' : key.expires_at !== null && key.expires_at <= now ? 'expired' : 'active';

export const toKeyRecord = (key: ApiKey, now: number): KeyRecord => ({
  id: key.id,
  org_id: key.org_id,
  site_id: key.site_id,
  key_type: key.key_type,
  name: key.name,
  scopes: JSON.parse(key.scopes) as string[],
  key_hint: key.key_hint,
  created_by: key.created_by,
  created_at: iso(key.created_at),
  expires_at: isoOrNull(key.expires_at),
  last_used_at: isoOrNull(key.last_used_at),
  status: keyStatus(key, now),
});

/** The scopes a new key gets: what was asked for, checked against its type. */
export function resolveScopes(type: KeyType, asked: readonly Scope[] | undefined): Scope[] {
  const rules = KEY_TYPE_RULES[type];
  if (!asked) {
    if (type === 'secret') throw invalidInput('scopes', 'secret keys need at least one scope');
    return [...rules.required];
  }
  const bad = asked.find((s) => !rules.allowed.includes(s));
  if (bad) throw invalidInput('scopes', `${type} keys cannot hold ${bad}`);
  return [...new Set([...rules.required, ...asked])];
}

export async function insertKey(trx: Kysely<Database>, secrets: Secrets, input: {
  orgId: string; siteId: string | null; type: KeyType; scopes: Scope[]; name: string | null; createdBy: string | null; expiresAt: number | null;
}, now: number) {
  const raw = generateKey(input.type);
  const key: ApiKey = {
    id: uuidv7(), org_id: input.orgId, site_id: input.siteId, key_type: input.type, name: input.name,
    scopes: JSON.stringify(input.scopes), key_hash: hashKey(secrets, raw), key_hint: keyHint(raw),
    created_by: input.createdBy, created_at: now, expires_at: input.expiresAt, revoked_at: null, last_used_at: null,
  };
  await trx.insertInto('api_keys').values(key).execute();
  return { key, raw };
}

/** The org's keys not revoked (all of them with include_revoked), or one site's when `site_id` is given. */
export async function listKeys({ ctx, input }: { ctx: ServiceContext; input: ListKeysQuery }): Promise<{ keys: KeyRecord[] }> {
  const site = input.site_id ? await siteInScope(ctx, input.site_id) : null;
  let query = ctx.db.selectFrom('api_keys').selectAll().where('org_id', '=', ctx.auth.org.id);
  if (!input.include_revoked) query = query.where('revoked_at', 'is', null);
  if (site) query = query.where('site_id', '=', site.id);
  const rows = await query.orderBy('created_at', 'asc').orderBy('id', 'asc').execute();
  return { keys: rows.map((row) => toKeyRecord(row, ctx.now)) };
}

/** Mints a key for a user; `secrets` hashes it (only the HMAC is stored). */
export async function createKey({ ctx, input, secrets }: { ctx: ServiceContext; input: CreateKeyBody; secrets: Secrets }) {
  const { auth, now } = ctx;
  const siteId = input.site_id ? (await siteInScope(ctx, input.site_id)).id : null;
  const scopes = resolveScopes(input.key_type, input.scopes);
  let expiresAt: number | null = null;
  if (input.expires_at) {
    expiresAt = Date.parse(input.expires_at);
    if (!(expiresAt > now)) throw invalidInput('expires_at', 'must be in the future');
  }
  if (input.key_type === 'publishable' && !siteId) throw invalidInput('site_id', 'publishable keys belong to one site');
  return ctx.db.transaction().execute(async (trx) => {
    const { key, raw } = await insertKey(trx, secrets, {
      orgId: auth.org.id, siteId, type: input.key_type, scopes,
      name: input.name === undefined ? null : cleanName(input.name), createdBy: actorOf(auth).label, expiresAt,
    }, now);
    await recordAudit(trx, ctx, { action: 'key.created', targetType: 'api_key', targetId: key.id, siteId, details: { key_type: key.key_type, scopes } });
    return { ...toKeyRecord(key, now), key: raw };
  });
}

export async function revokeKey({ ctx, input: { id } }: { ctx: ServiceContext; input: { id: string } }): Promise<{ id: string; deleted: true }> {
  const { auth, now } = ctx;
  await ctx.db.transaction().execute(async (trx) => {
    const key = await trx.updateTable('api_keys').set({ revoked_at: now })
      .where('id', '=', id).where('org_id', '=', auth.org.id).where('revoked_at', 'is', null).returning(['site_id']).executeTakeFirst();
    if (!key) throw new AppError('not_found', 'Key not found');
    // The row names the key's site, as its key.created row does.
    await recordAudit(trx, ctx, { action: 'key.revoked', targetType: 'api_key', targetId: id, siteId: key.site_id });
  });
  forgetCredentials(ctx.db);
  return { id, deleted: true };
}
