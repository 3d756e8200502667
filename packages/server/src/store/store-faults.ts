// What a store error says about the store itself, apart from the request that met it: the
// database unreachable (a restart, a dropped connection) or out of space. The request path
// answers these 503 with Retry-After instead of 500 (app.ts toAppError); nothing else here
// decides anything. PostgreSQL errors carry SQLSTATE codes; node errors carry errno codes;
// better-sqlite3 errors carry SQLITE_* codes.

export type StoreFault = 'unavailable' | 'storage_full';

/** SQLSTATE classes and codes of a connection that is gone or not ready (admin shutdown, crash, starting up). */
const PG_UNAVAILABLE = new Set(['57P01', '57P02', '57P03', '53300', '08000', '08001', '08003', '08004', '08006']);
const NET_UNAVAILABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
/** pg's own messages when a pooled connection ends under a query. */
const PG_GONE_MESSAGES = [/Connection terminated/i, /connection is closed/i, /Client has encountered a connection error/i, /timeout exceeded when trying to connect/i];

export function storeFault(error: unknown): StoreFault | null {
  if (!error || typeof error !== 'object') return null;
  const code = (error as { code?: unknown }).code;
  if (code === '53100' || code === 'SQLITE_FULL' || code === 'ENOSPC') return 'storage_full';
  if (typeof code === 'string' && (PG_UNAVAILABLE.has(code) || NET_UNAVAILABLE.has(code))) return 'unavailable';
  const message = (error as { message?: unknown }).message;
  if (typeof message === 'string' && PG_GONE_MESSAGES.some((re) => re.test(message))) return 'unavailable';
  return null;
}

/** How long a client should wait before retrying, per fault. */
export const FAULT_RETRY_AFTER_SECONDS: Readonly<Record<StoreFault, number>> = { unavailable: 5, storage_full: 30 };
