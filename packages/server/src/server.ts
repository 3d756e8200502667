// Starts the service from config: store, migrations, rate limiter, HTTP server, and a
// graceful stop on SIGTERM/SIGINT (stop accepting, finish in-flight requests, close the store).
import { buildApp, loggerOptions, type App } from './app.ts';
import { systemClock, type Clock } from './clock.ts';
import type { Config } from './config.ts';
import { MemoryRateLimiter, type RateLimiter } from './store/rate-limit.ts';
import { openRedisRateLimiter, type LimiterLog } from './store/fallback-rate-limit.ts';
import { openStore, type Store } from './store/db.ts';
import { migrateToLatest } from './store/migrate.ts';
import { startWorker } from './worker.ts';
import { demoteChatter, prettyStream, processLogger, type LogFormat } from './logs/terminal-log.ts';
import { startHeartbeat } from './logs/heartbeat.ts';

/** With REDIS_URL, limits shared through Redis, counted per process while it is unreachable. */
export function createLimiter(config: Config, log: LimiterLog): RateLimiter {
  if (!config.redisUrl) return new MemoryRateLimiter();
  return openRedisRateLimiter(config.redisUrl, log);
}

export interface RunningServer { app: App; store: Store; url: string; stop(): Promise<void> }

export interface StartOptions {
  worker?: boolean;
  /** Runs on the migrated store before the server listens (the demo's first-run data). */
  beforeListen?: (store: Store) => Promise<void>;
  /**
   * `pretty` (for a terminal): readable lines, the per-request lines at `debug` and a
   * once-a-minute traffic line instead (logs/terminal-log.ts). Default `json`.
   */
  logFormat?: LogFormat;
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
  // Its own logger: the limiter is made before the app (whose logger is Fastify's), and may
  // log from the first connection attempt on.
  const format = options.logFormat ?? 'json';
  const limiter = createLimiter(config, processLogger(config.logLevel, format));
  const logger = loggerOptions(config.logLevel);
  const app = await buildApp({
    config, store, clock, limiter,
    logger: typeof logger === 'object'
      ? { ...logger, hooks: { logMethod: demoteChatter(format) }, ...(format === 'pretty' ? { stream: prettyStream() } : {}) }
      : logger,
  });
  store.faults.logTo(app.log);
  await app.listen({ port: config.port, host: config.host });
  // The dashboard is built when the server listens, by esbuild's child process, which shares the
  // terminal: a Ctrl-C pressed right after the start's last line killed it mid-build and logged
  // an error on the way out. So the start waits for that build (a failed one is logged already).
  await Promise.all(app.services.warmUps.map((warmUp) => warmUp().catch(() => undefined)));
  const worker = options.worker === false ? null : startWorker(store, clock, config, app.log);
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  // Once (Fastify's own listening line is at debug), and before the demo's banner.
  app.log.info(`Mallard listening on ${url}${options.worker === false ? ' (API only, no worker)' : ''}`);
  const heartbeat = format === 'pretty' ? startHeartbeat(() => app.services.metrics.totals(), (line) => app.log.info(line), { clock }) : null;
  let stopping: Promise<void> | null = null;
  const stop = () => {
    stopping ??= (async () => {
      heartbeat?.stop();
      await app.close();
      await worker?.stop();
      await limiter.close();
      await store.close();
    })();
    return stopping;
  };
  return { app, store, url, stop };
}
