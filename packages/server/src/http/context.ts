// The service context of a request: who is calling (from authentication), the store, the
// time from the injected clock, the request id, the request's logger and the process parts
// (for the operations that need one). GET routes of the query surface are pure reads: they get
// the store's read connection (on SQLite the read pool's worker threads, so a slow read never
// stalls the main thread); everything else gets the main connection.
import type { FastifyRequest } from 'fastify';
import type { PublicContext, ServiceContext } from '../domain/context.ts';
import { AppError } from '../domain/errors.ts';
import './app-types.ts';

/** The context of a route with no authenticated caller (login, set-password). */
export function publicContextOf(request: FastifyRequest): PublicContext {
  const services = request.server.services;
  const { store, clock } = services;
  const pureRead = request.method === 'GET' && request.access?.surface === 'query';
  return {
    db: pureRead ? store.readDb : store.db, backgroundReadDb: store.backgroundReadDb, writeDb: store.db,
    // Not turned off by a request's Cache-Control: browsers send no-cache with every `cache: 'no-store'` fetch (the dashboard's).
    readCache: pureRead ? store.readCache : undefined,
    now: clock.now(), requestId: request.id, ip: request.ip, log: request.log, parts: services,
  };
}

export function contextOf(request: FastifyRequest): ServiceContext {
  // Authentication runs before every non-public route; a route without it has no context.
  if (!request.auth) throw new AppError('internal_error', 'No credential on a route that needs one');
  return { ...publicContextOf(request), auth: request.auth };
}
