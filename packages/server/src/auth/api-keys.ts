// API key formats and scopes. Only an HMAC of a key is stored; the raw key is shown once.
import { randomBase62, type Secrets } from './secrets.ts';

export const KEY_TYPES = ['secret', 'mcp', 'publishable'] as const;
export type KeyType = (typeof KEY_TYPES)[number];

export const SCOPES = ['ingest:write', 'query:read', 'manage:write', 'mcp:read', 'webhook:write'] as const;
export type Scope = (typeof SCOPES)[number];

export const KEY_PREFIX: Record<KeyType, string> = { secret: 'svc_sec_', mcp: 'svc_mcp_', publishable: 'svc_pub_' };

/** Scopes each key type may hold, and those it always holds. */
export const KEY_TYPE_RULES: Record<KeyType, { allowed: readonly Scope[]; required: readonly Scope[] }> = {
  secret: { allowed: SCOPES, required: [] },
  mcp: { allowed: ['mcp:read', 'manage:write'], required: ['mcp:read'] },
  publishable: { allowed: ['ingest:write'], required: ['ingest:write'] },
};

export function keyTypeOf(raw: string): KeyType | null {
  for (const type of KEY_TYPES) if (raw.startsWith(KEY_PREFIX[type])) return type;
  return null;
}

export function generateKey(type: KeyType): string {
  return KEY_PREFIX[type] + randomBase62(40);
}

export function hashKey(secrets: Secrets, raw: string): string {
  return secrets.hmac('api-key', raw);
}

/** The key's HMAC under every secret of the keyring, current first: what its stored hash may be. */
export function keyHashes(secrets: Secrets, raw: string): string[] {
  return secrets.hmacs('api-key', raw);
}

/** What a list shows instead of the key: its prefix and last four characters. */
export function keyHint(raw: string): string {
  return `${raw.slice(0, 8)}...${raw.slice(-4)}`;
}
