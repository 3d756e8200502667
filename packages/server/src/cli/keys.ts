// `mallard keys create|list|revoke`: the operator mints, lists and revokes keys for a site straight in the store (no user
// token: whoever runs the CLI already holds DATABASE_URL and MALLARD_SECRET). Shown once. Each runs the catalog's
// operation (operations.ts) through the runner, as an owner of the org the command names (features/orgs/operator.ts);
// the audit log records it as the system.
import type { Kysely } from 'kysely';
import { KEY_TYPES, SCOPES, type KeyType, type Scope } from '../auth/api-keys.ts';
import { Secrets } from '../auth/secrets.ts';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import { AppError } from '../domain/errors.ts';
import { runOperation } from '../domain/operation.ts';
import { UUID_PATTERN } from '../domain/tenancy.ts';
import { openStore } from '../store/db.ts';
import { migrateToLatest } from '../store/migrate.ts';
import type { Database } from '../store/tables.ts';
import { operatorContext, orgOfKey, orgOfSite, orgsById, type OperatorOrg } from '../features/orgs/operator.ts';
import { createKeyOp, listKeysOp, revokeKeyOp } from '../features/keys/operations.ts';
import type { KeyRecord } from '../features/keys/schemas.ts';

export interface KeysCreateOptions { site: string; type: string; scopes?: string; name?: string; expiresIn?: string; json?: boolean }

export const KEYS_CREATE_DEFAULT_SCOPES = 'secret: every scope; mcp: mcp:read; publishable: ingest:write';

const DURATION_UNIT_MS = { d: 86_400_000, h: 3_600_000, m: 60_000 } as const;
/** The longest --expires-in: ten years. */
export const MAX_EXPIRES_IN_MS = 3650 * DURATION_UNIT_MS.d;

/** `--expires-in`: a whole number of days, hours or minutes (`30d`, `12h`, `90m`), at least a minute and at most ten years, in ms. */
export function parseExpiresIn(text: string, fail: (message: string) => Error): number {
  const match = /^([1-9][0-9]{0,6})([dhm])$/.exec(text.trim());
  if (!match) throw fail(`--expires-in must be a whole number of days, hours or minutes such as 30d, 12h or 90m, got "${text}"`);
  const ms = Number(match[1]) * DURATION_UNIT_MS[match[2] as keyof typeof DURATION_UNIT_MS];
  if (ms > MAX_EXPIRES_IN_MS) throw fail(`--expires-in must be at most 3650d (ten years), got "${text}"`);
  return ms;
}

function parseScopes(list: string, fail: (message: string) => Error): Scope[] {
  const scopes = list.split(',').map((s) => s.trim()).filter(Boolean);
  if (scopes.length === 0) throw fail('--scopes needs at least one scope');
  const unknown = scopes.find((s) => !(SCOPES as readonly string[]).includes(s));
  if (unknown) throw fail(`--scopes: unknown scope "${unknown}" (one of ${SCOPES.join(', ')})`);
  return [...new Set(scopes)] as Scope[];
}

export async function runKeysCreate(
  opts: KeysCreateOptions, config: () => Config, clock: Clock, fail: (message: string) => Error, print: (line: string) => void = console.log,
) {
  if (!(KEY_TYPES as readonly string[]).includes(opts.type)) throw fail(`--type must be one of ${KEY_TYPES.join(', ')}, got "${opts.type}"`);
  if (!UUID_PATTERN.test(opts.site)) throw fail(`--site must be a site id (a UUID), got "${opts.site}"`);
  if (opts.name !== undefined && (opts.name.trim() === '' || opts.name.length > 200)) throw fail('--name must be 1 to 200 characters');
  const type = opts.type as KeyType;
  const scopes = opts.scopes === undefined ? undefined : parseScopes(opts.scopes, fail);
  const lifetime = opts.expiresIn === undefined ? null : parseExpiresIn(opts.expiresIn, fail);
  const { databaseUrl, secret, sqliteSynchronous } = config();
  const store = openStore(databaseUrl, { sqliteSynchronous });
  try {
    await migrateToLatest(store.db);
    const now = clock.now();
    const siteId = opts.site.toLowerCase();
    const org = await orgOfSite(store.db, siteId);
    if (!org) throw fail(`--site ${opts.site} is not a site`);
    let created;
    try {
      created = await runOperation(createKeyOp, operatorContext(store.db, org, now, { secrets: new Secrets(secret) }), {
        site_id: siteId, key_type: type,
        // Without --scopes a secret key holds every scope (like bootstrap's); the others get their fixed ones.
        scopes: scopes ?? (type === 'secret' ? [...SCOPES] : undefined),
        ...(opts.name === undefined ? {} : { name: opts.name }),
        ...(lifetime === null ? {} : { expires_at: new Date(now + lifetime).toISOString() }),
      });
    } catch (err) {
      if (err instanceof AppError && err.code === 'not_found') throw fail(`--site ${opts.site} is not a site`);
      if (err instanceof AppError && err.code === 'invalid_input') throw fail(`--${String(err.details?.field ?? 'scopes')}: ${String(err.details?.reason ?? err.message)}`);
      throw err;
    }
    if (opts.json) {
      print(JSON.stringify(created));
    } else {
      print([
        `Created a ${created.key_type} key for site ${created.site_id} (id ${created.id}; scopes ${created.scopes.join(', ')}${created.expires_at === null ? '' : `; expires ${created.expires_at}`})`,
        'Shown once, store it now:',
        `  ${created.key}`,
      ].join('\n'));
    }
    return created;
  } finally {
    await store.close();
  }
}

/** The keys not revoked of one site, one org or every org (by org, then as each org's list orders them): the list operation, run in each org named. */
async function keysNotRevoked(db: Kysely<Database>, now: number, siteId: string | undefined, orgId: string | undefined): Promise<KeyRecord[]> {
  let orgs: OperatorOrg[];
  if (siteId === undefined) {
    orgs = await orgsById(db, orgId);
  } else {
    const org = await orgOfSite(db, siteId);
    orgs = org && (orgId === undefined || org.id === orgId) ? [org] : [];
  }
  const keys: KeyRecord[] = [];
  for (const org of orgs) keys.push(...(await runOperation(listKeysOp, operatorContext(db, org, now, {}), siteId === undefined ? {} : { site_id: siteId })).keys);
  return keys;
}

/**
 * Revokes a key as the operator (the revoke operation, in the key's org): false when there is
 * no such key or it is revoked already. Also what `mallard simulate` ends its own key with.
 */
export async function revokeAsOperator(db: Kysely<Database>, now: number, id: string): Promise<boolean> {
  const org = await orgOfKey(db, id);
  if (!org) return false;
  try {
    await runOperation(revokeKeyOp, operatorContext(db, org, now, {}), { id });
    return true;
  } catch (err) {
    if (err instanceof AppError && err.code === 'not_found') return false;
    throw err;
  }
}

export interface KeysListOptions { site?: string; org?: string; json?: boolean }

/** `mallard keys list`: the keys not revoked (never the keys themselves), active or expired, of one site or org, or all. */
export async function runKeysList(
  opts: KeysListOptions, config: () => Config, clock: Clock, fail: (message: string) => Error, print: (line: string) => void = console.log,
) {
  if (opts.site !== undefined && !UUID_PATTERN.test(opts.site)) throw fail(`--site must be a site id (a UUID), got "${opts.site}"`);
  if (opts.org !== undefined && !UUID_PATTERN.test(opts.org)) throw fail(`--org must be an org id (a UUID), got "${opts.org}"`);
  const { databaseUrl, sqliteSynchronous } = config();
  const store = openStore(databaseUrl, { sqliteSynchronous });
  try {
    await migrateToLatest(store.db);
    const keys = await keysNotRevoked(store.db, clock.now(), opts.site?.toLowerCase(), opts.org?.toLowerCase());
    if (opts.json) {
      print(JSON.stringify({ keys }));
    } else if (keys.length === 0) {
      print('No active keys.');
    } else {
      for (const key of keys) {
        print([
          key.id, key.key_type.padEnd(11), key.status.padEnd(7), key.key_hint, key.name ?? '-', `site ${key.site_id ?? 'org-wide'}`,
          `created ${key.created_at}`, `expires ${key.expires_at ?? 'never'}`, `last used ${key.last_used_at ?? 'never'}`,
        ].join('  '));
      }
    }
    return keys;
  } finally {
    await store.close();
  }
}

/** `mallard keys revoke ID`: the key fails at once on this store's processes (within seconds elsewhere). */
export async function runKeysRevoke(
  id: string, config: () => Config, clock: Clock, fail: (message: string) => Error, print: (line: string) => void = console.log,
) {
  if (!UUID_PATTERN.test(id)) throw fail(`the key id must be a UUID, got "${id}"`);
  const { databaseUrl, sqliteSynchronous } = config();
  const store = openStore(databaseUrl, { sqliteSynchronous });
  try {
    await migrateToLatest(store.db);
    if (!(await revokeAsOperator(store.db, clock.now(), id.toLowerCase()))) throw fail(`no active key ${id}`);
    print(`Revoked key ${id.toLowerCase()}`);
  } finally {
    await store.close();
  }
}
