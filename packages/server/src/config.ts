// Environment -> typed config, parsed once at start. A bad value stops the process with
// one line naming the variable; nothing reads process.env after this.
import { isIP } from 'node:net';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';
import { DEFAULT_READ_CACHE_MS, parseDatabaseUrl, type SqliteSynchronous } from './store/db.ts';

export interface RateLimits {
  query: number; manage: number; ingest: number; guide: number;
  /** MCP tool calls (and resource reads, prompt fetches) a minute per credential, apart from the query surface's limit. */
  mcp: number;
}

export interface Config {
  env: 'development' | 'production' | 'test';
  port: number;
  host: string;
  databaseUrl: string;
  redisUrl: string | null;
  secret: string;
  /** MALLARD_SECRET_PREVIOUS: during a rotation, what was made with it still verifies and opens; null otherwise. */
  previousSecret: string | null;
  logLevel: string;
  rateLimits: RateLimits;
  smtpUrl: string | null;
  demo: boolean;
  allowPrivateTargets: boolean;
  retentionDays: number;
  /** Days audit rows are kept (MALLARD_AUDIT_RETENTION_DAYS); its own setting, longer than raw data's by default. */
  auditRetentionDays: number;
  /** Reader threads of the SQLite read pool (0: reads run on the main connection). */
  sqliteReaders: number;
  /** How long the read cache keeps an answer of a read route (store/read-cache.ts); 0 turns it off. */
  readCacheMs: number;
  /**
   * SQLite's synchronous setting for every connection that writes: 'normal' (WAL stays
   * consistent through a power loss but may lose the last commits) or 'full' (fsync on every
   * commit: nothing acknowledged is lost, at a cost in write throughput).
   */
  sqliteSynchronous: SqliteSynchronous;
  pipelineIntervalMs: number;
  /**
   * How long a delivery worker's claim on a due job lasts: a worker that dies mid-send delays
   * that job by this much, and then another worker sends it. Longer than the longest send's
   * timeout (email's 30 s), so a slow send is never claimed a second time while it runs.
   */
  deliveryLeaseMs: number;
  /** Where links in notifications point, and the base URLs of outside services (tests point them at local receivers). */
  publicUrl: string;
  providers: { slackApi: string; pagerdutyEvents: string; linearApi: string; githubApi: string };
  dataDir: string;
  /**
   * Which client address requests report (per-IP limits, the audit log, logs): false uses the
   * socket's peer; a number trusts that many proxy hops of X-Forwarded-For; a list trusts
   * only peers at those addresses or CIDR ranges; true trusts every hop.
   */
  trustProxy: boolean | number | string[];
  /** When set, GET /metrics needs `Authorization: Bearer <metricsToken>`; null leaves it public. */
  metricsToken: string | null;
  /** OAuth for the MCP endpoint (features/oauth): how long an access token and a refresh token live, in seconds. */
  oauth: { accessTokenTtlSec: number; refreshTokenTtlSec: number };
}

export class ConfigError extends Error {}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
/** An access token lives an hour; a refresh token 30 days, renewed (rotated) at each use. */
export const DEFAULT_OAUTH: Config['oauth'] = { accessTokenTtlSec: 3600, refreshTokenTtlSec: 30 * 86_400 };
export const DEFAULT_RATE_LIMITS: RateLimits = { query: 100, manage: 30, ingest: 10_000, guide: 200, mcp: 300 };

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

function flag(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw.toLowerCase())) return true;
  if (['0', 'false', 'no', 'off'].includes(raw.toLowerCase())) return false;
  throw new ConfigError(`${name} must be 0 or 1, got "${raw}"`);
}

function sqliteSynchronous(env: NodeJS.ProcessEnv): SqliteSynchronous {
  const raw = (env.MALLARD_SQLITE_SYNCHRONOUS ?? '').trim().toLowerCase();
  if (raw === '') return 'normal';
  if (raw === 'normal' || raw === 'full') return raw;
  throw new ConfigError(`MALLARD_SQLITE_SYNCHRONOUS must be normal or full, got "${env.MALLARD_SQLITE_SYNCHRONOUS}"`);
}

function trustProxy(env: NodeJS.ProcessEnv): boolean | number | string[] {
  const raw = (env.TRUST_PROXY ?? '').trim();
  if (raw === '' || ['0', 'false', 'no', 'off'].includes(raw.toLowerCase())) return false;
  if (['true', 'yes', 'on'].includes(raw.toLowerCase())) return true;
  if (/^\d+$/.test(raw)) {
    const hops = Number(raw);
    if (hops > 10) throw new ConfigError(`TRUST_PROXY hop count must be 0 to 10, got ${hops}`);
    return hops;
  }
  const list = raw.split(',').map((entry) => entry.trim()).filter(Boolean);
  for (const entry of list) {
    const [address, bits, extra] = entry.split('/');
    const version = isIP(address);
    const maxBits = version === 6 ? 128 : 32;
    if (!version || extra !== undefined || (bits !== undefined && !(/^\d+$/.test(bits) && Number(bits) <= maxBits))) {
      throw new ConfigError(`TRUST_PROXY must be off, true, a hop count or a comma-separated list of addresses or CIDR ranges; "${entry}" is none of them`);
    }
  }
  return list;
}

/** A bearer token: printable ASCII without spaces (what a `Bearer <token>` header can carry), 16 to 256 characters. */
function metricsToken(env: NodeJS.ProcessEnv): string | null {
  const raw = env.METRICS_TOKEN;
  if (raw === undefined || raw === '') return null;
  if (!/^[\x21-\x7e]{16,256}$/.test(raw)) throw new ConfigError('METRICS_TOKEN must be 16 to 256 printable characters without spaces');
  return raw;
}

function url(env: NodeJS.ProcessEnv, name: string, protocols: string[]): string | null {
  const raw = env[name];
  if (raw === undefined || raw === '') return null;
  let parsed: URL;
  try { parsed = new URL(raw); } catch { throw new ConfigError(`${name} is not a valid URL`); }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must use ${protocols.join(' or ')}, got ${parsed.protocol}`);
  }
  return raw;
}

/** The development secret lives in the data dir, readable by its owner only. */
function developmentSecret(dataDir: string): string {
  const file = join(dataDir, 'secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return secret;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const nodeEnv = env.NODE_ENV === 'production' ? 'production' : env.NODE_ENV === 'test' ? 'test' : 'development';
  const databaseUrl = env.DATABASE_URL || 'sqlite:./data/mallard.db';
  let dataDir = resolve('./data');
  try {
    const parsed = parseDatabaseUrl(databaseUrl);
    if (parsed.dialect === 'sqlite' && parsed.target !== ':memory:') dataDir = dirname(resolve(parsed.target));
  } catch (err) {
    throw new ConfigError(`DATABASE_URL: ${(err as Error).message.replace(/^DATABASE_URL:?\s*/, '')}`);
  }

  const logLevel = env.LOG_LEVEL || 'info';
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);

  let secret = env.MALLARD_SECRET || '';
  if (secret && secret.length < 32) throw new ConfigError('MALLARD_SECRET must be at least 32 characters');
  if (!secret) {
    if (nodeEnv === 'production') throw new ConfigError('MALLARD_SECRET is required when NODE_ENV=production');
    secret = developmentSecret(dataDir);
  }
  const previousSecret = env.MALLARD_SECRET_PREVIOUS || null;
  if (previousSecret !== null && previousSecret.length < 32) throw new ConfigError('MALLARD_SECRET_PREVIOUS must be at least 32 characters');
  if (previousSecret !== null && previousSecret === secret) throw new ConfigError('MALLARD_SECRET_PREVIOUS must differ from MALLARD_SECRET (set it to the secret being replaced)');

  const host = env.HOST || '127.0.0.1';
  const port = int(env, 'PORT', 8787, 0, 65535);
  const https = ['https:'];
  const any = ['https:', 'http:'];
  return {
    env: nodeEnv,
    port,
    host,
    databaseUrl,
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    secret,
    previousSecret,
    logLevel,
    rateLimits: {
      query: int(env, 'RATE_LIMIT_QUERY_PER_MIN', DEFAULT_RATE_LIMITS.query, 1, 10_000_000),
      manage: int(env, 'RATE_LIMIT_MANAGE_PER_MIN', DEFAULT_RATE_LIMITS.manage, 1, 10_000_000),
      ingest: int(env, 'RATE_LIMIT_INGEST_PER_MIN', DEFAULT_RATE_LIMITS.ingest, 1, 100_000_000),
      guide: int(env, 'RATE_LIMIT_GUIDE_PER_MIN', DEFAULT_RATE_LIMITS.guide, 1, 10_000_000),
      mcp: int(env, 'RATE_LIMIT_MCP_PER_MIN', DEFAULT_RATE_LIMITS.mcp, 1, 10_000_000),
    },
    smtpUrl: url(env, 'SMTP_URL', ['smtp:', 'smtps:']),
    // Demo data on the first start: on by default in development (what `npm start` runs).
    demo: flag(env, 'MALLARD_DEMO', nodeEnv === 'development'),
    allowPrivateTargets: flag(env, 'MALLARD_ALLOW_PRIVATE_TARGETS', false),
    retentionDays: int(env, 'MALLARD_RETENTION_DAYS', 90, 1, 3650),
    auditRetentionDays: int(env, 'MALLARD_AUDIT_RETENTION_DAYS', 365, 1, 36500),
    sqliteReaders: int(env, 'MALLARD_SQLITE_READERS', 2, 0, 16),
    readCacheMs: int(env, 'MALLARD_READ_CACHE_MS', DEFAULT_READ_CACHE_MS, 0, 60_000),
    sqliteSynchronous: sqliteSynchronous(env),
    pipelineIntervalMs: int(env, 'MALLARD_PIPELINE_INTERVAL_MIN', 15, 1, 1440) * 60_000,
    deliveryLeaseMs: int(env, 'MALLARD_DELIVERY_LEASE_SEC', 60, 35, 3600) * 1000,
    publicUrl: (url(env, 'MALLARD_PUBLIC_URL', any) ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(/\/$/, ''),
    providers: {
      slackApi: (url(env, 'SLACK_API_URL', nodeEnv === 'production' ? https : any) ?? 'https://slack.com/api').replace(/\/$/, ''),
      pagerdutyEvents: url(env, 'PAGERDUTY_EVENTS_URL', nodeEnv === 'production' ? https : any) ?? 'https://events.pagerduty.com/v2/enqueue',
      linearApi: url(env, 'LINEAR_API_URL', nodeEnv === 'production' ? https : any) ?? 'https://api.linear.app/graphql',
      githubApi: (url(env, 'GITHUB_API_URL', nodeEnv === 'production' ? https : any) ?? 'https://api.github.com').replace(/\/$/, ''),
    },
    dataDir,
    trustProxy: trustProxy(env),
    metricsToken: metricsToken(env),
    oauth: {
      accessTokenTtlSec: int(env, 'MALLARD_OAUTH_ACCESS_TTL_SEC', DEFAULT_OAUTH.accessTokenTtlSec, 60, 86_400),
      refreshTokenTtlSec: int(env, 'MALLARD_OAUTH_REFRESH_TTL_DAYS', DEFAULT_OAUTH.refreshTokenTtlSec / 86_400, 1, 365) * 86_400,
    },
  };
}
