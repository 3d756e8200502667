// The app's routes, under /v1 except the OAuth server's endpoints, the health probes, the SDK
// script and the dashboard: every operation of the catalog that has an http binding
// (http/catalog-routes.ts), and the HTTP face's own routes (http/routes/: sign-in, SSO,
// two-factor, OAuth, ingest, clip uploads, the public SDK config, the assets).
import type { App } from './http/app-types.ts';
import { catalogRoutes } from './http/catalog-routes.ts';
import { authRoutes } from './http/routes/auth.ts';
import { clipIngestRoutes } from './http/routes/clip-ingest.ts';
import { dashboardRoutes } from './http/routes/dashboard.ts';
import { funRoutes } from './http/routes/fun.ts';
import { healthRoutes } from './http/routes/health.ts';
import { ingestRoutes } from './http/routes/ingest.ts';
import { oauthConsentRoutes, oauthServerRoutes } from './http/routes/oauth.ts';
import { sdkScriptRoutes } from './http/routes/sdk-script.ts';
import { publicSdkConfigRoutes } from './http/routes/sdk-config.ts';
import { ssoRoutes } from './http/routes/sso.ts';
import { twoFactorRoutes } from './http/routes/two-factor.ts';
import { createOAuthServer } from './features/oauth/provider.ts';

export async function registerRoutes(app: App) {
  // Mallard's OAuth authorization server for the MCP endpoint: its endpoints at the root, its
  // consent and settings routes under /v1.
  const oauth = { server: createOAuthServer({ ...app.services, log: app.log }) };
  await app.register(oauthServerRoutes, oauth);
  await app.register(healthRoutes);
  await app.register(sdkScriptRoutes);
  await app.register(dashboardRoutes);
  await app.register(async (v1: App) => {
    for (const routes of [funRoutes, authRoutes, ssoRoutes, twoFactorRoutes]) await v1.register(routes);
    // Every operation of the catalog that has an http binding, in the catalog's order (the document's).
    await v1.register(catalogRoutes);
    // Ingest, clip uploads and the public SDK config have open CORS (and the uploads their own parsers), each in its own scope.
    await v1.register(ingestRoutes);
    await v1.register(clipIngestRoutes);
    await v1.register(publicSdkConfigRoutes);
    await v1.register(oauthConsentRoutes, oauth);
  }, { prefix: '/v1' });
}
