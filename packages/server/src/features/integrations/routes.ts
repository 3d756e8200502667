// Integrations on /manage: the list, connect and disconnect. Derived from the catalog
// (operations.ts); connecting documents its 409 (the provider already connected).
import type { App } from '../../http/app-types.ts';
import { operationRoute } from '../../http/operation-route.ts';
import { connectIntegrationOp, disconnectIntegrationOp, listIntegrationsOp } from './operations.ts';

export async function integrationRoutes(app: App) {
  operationRoute(app, listIntegrationsOp);
  operationRoute(app, connectIntegrationOp, { errors: ['conflict'] });
  operationRoute(app, disconnectIntegrationOp);
}
