// Every feature's routes, under /v1 except the health probes, the SDK script and the dashboard.
import type { App } from '../http/app-types.ts';
import { ingestRoutes } from '../http/routes/ingest.ts';
import { clipIngestRoutes } from '../http/routes/clip-ingest.ts';
import { clipRoutes } from './clips/routes.ts';
import { privacyRoutes } from './privacy/routes.ts';
import { authRoutes } from '../http/routes/auth.ts';
import { ssoRoutes } from '../http/routes/sso.ts';
import { alertRuleRoutes } from './alert-rules/routes.ts';
import { webhookRoutes } from './webhooks/routes.ts';
import { integrationRoutes } from './integrations/routes.ts';
import { ticketRoutes } from './tickets/routes.ts';
import { sdkConfigRoutes } from './sdk-config/routes.ts';
import { publicSdkConfigRoutes } from '../http/routes/sdk-config.ts';
import { rawRoutes } from './raw/routes.ts';
import { funRoutes } from '../http/routes/fun.ts';
import { healthRoutes } from '../http/routes/health.ts';
import { sdkScriptRoutes } from '../http/routes/sdk-script.ts';
import { dashboardRoutes } from '../http/routes/dashboard.ts';
import { keyRoutes } from './keys/routes.ts';
import { memberRoutes } from './members/routes.ts';
import { siteRoutes } from './sites/routes.ts';
import { twoFactorRoutes } from '../http/routes/two-factor.ts';
import { createOAuthServer } from './oauth/provider.ts';
import { oauthConsentRoutes, oauthServerRoutes } from '../http/routes/oauth.ts';
import { catalogRoutes, type CatalogRouteOptions } from '../http/catalog-routes.ts';
import type { Operation } from '../domain/operation.ts';
import { auditLogOp } from './audit-log/operations.ts';
import { pageSnapshotOp } from './clips/operations.ts';
import { rawRowsOp } from './raw/operations.ts';
import { recommendationsOp } from './revenue/operations.ts';
import { updateAlertOp } from './alerts/operations.ts';
import { whoamiOp } from './whoami/operations.ts';

/**
 * Temporary (issue 27): the manage routes still written by hand in their features, each after
 * the catalog route it follows in the OpenAPI document. Empty, and gone, once they are
 * operations of the catalog.
 */
const HAND_WRITTEN_AFTER: CatalogRouteOptions['handWrittenAfter'] = new Map<Operation<any, any>, ((app: App) => Promise<void>)[]>([
  [whoamiOp, [siteRoutes, memberRoutes, keyRoutes]],
  [auditLogOp, [privacyRoutes]],
  [pageSnapshotOp, [clipRoutes]],
  [rawRowsOp, [rawRoutes]],
  [recommendationsOp, [sdkConfigRoutes, alertRuleRoutes]],
  [updateAlertOp, [webhookRoutes, integrationRoutes, ticketRoutes]],
]);

export async function registerFeatures(app: App) {
  // Mallard's OAuth authorization server for the MCP endpoint: its endpoints at the root, its
  // consent and settings routes under /v1.
  const oauth = { server: createOAuthServer({ ...app.services, log: app.log }) };
  await app.register(oauthServerRoutes, oauth);
  await app.register(healthRoutes);
  await app.register(sdkScriptRoutes);
  await app.register(dashboardRoutes);
  await app.register(async (v1: App) => {
    for (const routes of [funRoutes, authRoutes, ssoRoutes, twoFactorRoutes]) await v1.register(routes);
    // Every operation of the catalog that has an http binding (http/catalog-routes.ts).
    await v1.register(catalogRoutes, { handWrittenAfter: HAND_WRITTEN_AFTER });
    // Ingest, clip uploads and the public SDK config have open CORS (and the uploads their own parsers), each in its own scope.
    await v1.register(ingestRoutes);
    await v1.register(clipIngestRoutes);
    await v1.register(publicSdkConfigRoutes);
    await v1.register(oauthConsentRoutes, oauth);
  }, { prefix: '/v1' });
}
