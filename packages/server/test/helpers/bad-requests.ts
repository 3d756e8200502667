// The generic bad inputs any route can be sent, whatever it does (pathological-input and
// openapi-exact tests): JSON nested far too deep, huge arrays of empty objects, very long keys,
// and a request for an operation of the document that gets past authentication.
import type { FuzzOperation } from './fuzzer.ts';
import { bearer, type Org } from './harness.ts';

/** `depth` arrays inside each other around a 1. */
export const deepArrays = (depth: number) => `${'['.repeat(depth)}1${']'.repeat(depth)}`;
/** `depth` objects inside each other, each under the key "a". */
export const deepObjects = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
/** An array of empty objects about `bytes` long. */
export const emptyObjects = (bytes: number) => `[${Array.from({ length: Math.floor(bytes / 3) }, () => '{}').join(',')}]`;
/** An object with one key about `bytes` long. */
export const longKey = (bytes: number) => `{"${'k'.repeat(bytes)}":1}`;

/** A well-formed UUID that names no record. */
export const NO_RECORD = '0190f3a0-0000-7000-8000-000000000000';

/** The operation's path with its parameters filled (well-formed, whether or not a record exists). */
export const fillPath = (path: string) => path.replace(/\{([^}]+)\}/g, (_m, param: string) => (param === 'environment' ? 'production' : NO_RECORD));

/** A credential of `org` that passes the operation's authentication: a header, or `?key=` (none for public operations). */
export function credentialFor(operation: FuzzOperation, org: Org): { headers: Record<string, string>; query: Record<string, string> } {
  const security = (operation.op.security ?? []) as Record<string, string[]>[];
  if (security.length === 0) return { headers: {}, query: {} };
  if (security.some((s) => 'publishableKeyQuery' in s)) return { headers: {}, query: { key: org.keys.publishable } };
  if (security.some((s) => 'publishableKey' in s)) return { headers: bearer(org.keys.publishable), query: {} };
  return { headers: bearer(org.jwt), query: {} };
}
