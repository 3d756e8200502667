// Which backing services the suite can use. Outside CI an unreachable PostgreSQL or Redis
// skips its suites with a visible line; under CI=true it fails the run instead.
import { existsSync } from 'node:fs';
import pg from 'pg';
import { chromium, type Browser } from 'playwright-core';
import { Redis } from 'ioredis';

export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL || 'redis://127.0.0.1:6379';
const IN_CI = process.env.CI === 'true' || process.env.CI === '1';

async function reachable(check: () => Promise<void>, what: string, url: string): Promise<boolean> {
  try {
    await check();
    return true;
  } catch (err) {
    const line = `${what} at ${url.replace(/\/\/[^@/]*@/, '//')} is unreachable (${(err as Error).message})`;
    if (IN_CI) throw new Error(`CI=true and ${line}: failing instead of skipping`);
    console.warn(`SKIPPING ${what} suites: ${line}`);
    return false;
  }
}

export const postgresAvailable = await reachable(async () => {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL, connectionTimeoutMillis: 2000 });
  await client.connect();
  await client.end();
}, 'PostgreSQL', TEST_DATABASE_URL);

export const redisAvailable = await reachable(async () => {
  const redis = new Redis(TEST_REDIS_URL, { lazyConnect: true, connectTimeout: 2000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  try {
    await redis.connect();
    await redis.ping();
  } finally {
    redis.disconnect();
  }
}, 'Redis', TEST_REDIS_URL);

export type DialectName = 'sqlite' | 'postgres';

/** The dialects every storage test runs against; an unavailable one is listed as skipped. */
export const DIALECTS: { name: DialectName; skip: boolean }[] = [
  { name: 'sqlite', skip: false },
  { name: 'postgres', skip: !postgresAvailable },
];

/** Debian's Chromium, driven by playwright-core; never a downloaded browser. */
const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'];

/** Whether a browser suite can run; without Chromium it skips with a line (and fails under CI). */
export function chromiumAvailable(suite: string): boolean {
  if (existsSync(CHROMIUM)) return true;
  const line = `Chromium is not installed at ${CHROMIUM}`;
  if (IN_CI) throw new Error(`CI=true and ${line}: failing instead of skipping`);
  console.warn(`SKIPPING the ${suite}: ${line}`);
  return false;
}

/** `args`: more command-line switches, e.g. `--user-agent=` (requests sent after a page is gone, keepalive ones, carry the browser's own agent, not a context's). */
export const launchChromium = (args: string[] = []): Promise<Browser> => chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS, ...args] });
