// The service context of a request: who is calling (from authentication), the store, the
// time from the injected clock, the request id and the request's logger.
import type { FastifyRequest } from 'fastify';
import type { ServiceContext } from '../domain/context.ts';
import { AppError } from '../domain/errors.ts';
import './app-types.ts';

export function contextOf(request: FastifyRequest): ServiceContext {
  const { store, clock } = request.server.services;
  // Authentication runs before every non-public route; a route without it has no context.
  if (!request.auth) throw new AppError('internal_error', 'No credential on a route that needs one');
  return { auth: request.auth, db: store.db, now: clock.now(), requestId: request.id, log: request.log };
}
