// /healthz: the process answers. /readyz: and the store answers too.
import { Type } from '@sinclair/typebox';
import type { App } from '../app-types.ts';
import { AppError } from '../../domain/errors.ts';
import { Envelope, ok } from '../envelope.ts';

const Status = Envelope(Type.Object({ status: Type.String() }));

export async function healthRoutes(app: App) {
  const { store } = app.services;
  const access = { surface: 'public' } as const;

  app.get('/healthz', { config: { access }, schema: { tags: ['health'], response: { 200: Status } } }, async () => ok({ status: 'ok' }));

  app.get('/readyz', { config: { access, docs: { errors: ['unavailable'] } }, schema: { tags: ['health'], response: { 200: Status } } }, async (request) => {
    try {
      await store.ping();
    } catch (err) {
      // An outage is logged once per episode, however often a load balancer asks.
      if (!store.faults.failed(err)) request.log.warn({ err }, 'store not reachable');
      throw new AppError('unavailable', 'The store is not reachable');
    }
    return ok({ status: 'ready' });
  });
}
