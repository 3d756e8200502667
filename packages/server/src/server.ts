// Starts the service from config: store, migrations, rate limiter, HTTP server, and a
// graceful stop on SIGTERM/SIGINT (stop accepting, finish in-flight requests, close the store).
import { Redis } from 'ioredis';
import { buildApp, loggerOptions, type App } from './app.ts';
import { systemClock, type Clock } from './clock.ts';
import type { Config } from './config.ts';
import { MemoryRateLimiter, RedisRateLimiter, type RateLimiter } from './store/rate-limit.ts';
import { openStore, type Store } from './store/db.ts';
import { migrateToLatest } from './store/migrate.ts';
import { startWorker } from './worker.ts';

export function createLimiter(config: Config): RateLimiter {
  if (!config.redisUrl) return new MemoryRateLimiter();
  const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false });
  return new RedisRateLimiter(redis);
}

export interface RunningServer { app: App; store: Store; url: string; stop(): Promise<void> }

export interface StartOptions {
  worker?: boolean;
  /** Runs on the migrated store before the server listens (the demo's first-run data). */
  beforeListen?: (store: Store) => Promise<void>;
}

export async function startServer(config: Config, clock: Clock = systemClock, options: StartOptions = {}): Promise<RunningServer> {
  const store = openStore(config.databaseUrl, { sqliteReaders: config.sqliteReaders, sqliteSynchronous: config.sqliteSynchronous, readCacheMs: config.readCacheMs, clock });
  await migrateToLatest(store.db);
  try {
    await options.beforeListen?.(store);
  } catch (err) {
    await store.close();
    throw err;
  }
  const limiter = createLimiter(config);
  const app = await buildApp({
    config, store, clock, limiter,
    logger: loggerOptions(config.logLevel),
  });
  await app.listen({ port: config.port, host: config.host });
  const worker = options.worker === false ? null : startWorker(store, clock, config, app.log);
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  let stopping: Promise<void> | null = null;
  const stop = () => {
    stopping ??= (async () => {
      await app.close();
      await worker?.stop();
      await limiter.close();
      await store.close();
    })();
    return stopping;
  };
  return { app, store, url: `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`, stop };
}
