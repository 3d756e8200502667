// The types every route module shares, in a leaf module so that importing them never closes
// a circle through app.ts (which imports every route). The services are what every face may
// use, typed by the floors below the engine: an engine's own objects (the ingest writer) belong
// to the face that drives it, not to this bag.
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from '../config.ts';
import type { Clock } from '../clock.ts';
import type { Store } from '../store/db.ts';
import type { Secrets } from '../auth/secrets.ts';
import type { RateLimiter } from '../store/rate-limit.ts';
import type { Metrics } from './metrics.ts';
import type { Resolver, TargetPolicy } from '../domain/outbound-targets.ts';
import type { RouteTable } from './route-table.ts';

export interface AppDeps {
  config: Config;
  store: Store;
  clock: Clock;
  limiter: RateLimiter;
  /** Pino options or false; tests pass false. */
  logger?: FastifyServerOptions['logger'];
  /** DNS for outbound targets; tests inject one so no request ever leaves the machine. */
  resolver?: Resolver;
  /** How long a client may take to send a whole request (default REQUEST_TIMEOUT_MS); tests shorten it. */
  requestTimeoutMs?: number;
}

export interface Services extends AppDeps {
  secrets: Secrets; metrics: Metrics; targets: TargetPolicy;
  /** Work a started server finishes before its start returns (the dashboard's build), so none of it is cut short by a Ctrl-C after the start's last line. */
  warmUps: (() => Promise<unknown>)[];
}

export type { RouteTable };

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
    /** Every route's pattern, methods and access rule, as registered (405 handling, the OpenAPI and security tests). */
    routeTable: RouteTable;
  }
}

export type App = FastifyInstance<any, any, any, any, TypeBoxTypeProvider>;
