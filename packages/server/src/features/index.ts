// Every feature's routes, under /v1 except the health probes, the SDK script and the dashboard.
import type { App } from '../http/app-types.ts';
import { ingestRoutes } from '../ingest/routes.ts';
import { clipIngestRoutes } from './clips/ingest-routes.ts';
import { clipRoutes } from './clips/routes.ts';
import { annotationRoutes } from './annotations/routes.ts';
import { auditLogRoutes } from './audit-log/routes.ts';
import { privacyRoutes } from './privacy/routes.ts';
import { authRoutes } from './auth/routes.ts';
import { ssoRoutes } from './sso/routes.ts';
import { deployRoutes } from './deploys/routes.ts';
import { scoreRoutes } from './scores/routes.ts';
import { issueRoutes } from './issues/routes.ts';
import { alertRuleRoutes } from './alert-rules/routes.ts';
import { alertRoutes } from './alerts/routes.ts';
import { webhookRoutes } from './webhooks/routes.ts';
import { integrationRoutes } from './integrations/routes.ts';
import { ticketRoutes } from './tickets/routes.ts';
import { mcpContextRoutes } from './mcp-context/routes.ts';
import { revenueRoutes } from './revenue/routes.ts';
import { publicSdkConfigRoutes, sdkConfigRoutes } from './sdk-config/routes.ts';
import { heatmapRoutes } from './heatmaps/routes.ts';
import { journeyRoutes } from './journeys/routes.ts';
import { funnelRoutes } from './funnels/routes.ts';
import { rawRoutes } from './raw/routes.ts';
import { sessionRoutes } from './sessions/routes.ts';
import { funRoutes } from './fun/routes.ts';
import { healthRoutes } from './health/routes.ts';
import { sdkScriptRoutes } from './sdk-script/routes.ts';
import { dashboardRoutes } from './dashboard/routes.ts';
import { keyRoutes } from './keys/routes.ts';
import { memberRoutes } from './members/routes.ts';
import { settingsRoutes } from './settings/routes.ts';
import { siteRoutes } from './sites/routes.ts';
import { whoamiRoutes } from './whoami/routes.ts';
import { twoFactorRoutes } from './two-factor/routes.ts';
import { createOAuthServer } from './oauth/provider.ts';
import { oauthConsentRoutes, oauthServerRoutes } from './oauth/routes.ts';

export async function registerFeatures(app: App) {
  // Mallard's OAuth authorization server for the MCP endpoint: its endpoints at the root, its
  // consent and settings routes under /v1.
  const oauth = { server: createOAuthServer({ ...app.services, log: app.log }) };
  await app.register(oauthServerRoutes, oauth);
  await app.register(healthRoutes);
  await app.register(sdkScriptRoutes);
  await app.register(dashboardRoutes);
  await app.register(async (v1: App) => {
    for (const routes of [
      funRoutes, authRoutes, ssoRoutes, twoFactorRoutes, whoamiRoutes, siteRoutes, memberRoutes, keyRoutes, settingsRoutes, auditLogRoutes, privacyRoutes,
      sessionRoutes, clipRoutes, heatmapRoutes, journeyRoutes, funnelRoutes, rawRoutes,
      scoreRoutes, deployRoutes, annotationRoutes,
      issueRoutes, revenueRoutes, sdkConfigRoutes,
      alertRuleRoutes, alertRoutes, webhookRoutes, integrationRoutes, ticketRoutes, mcpContextRoutes,
    ]) {
      await v1.register(routes);
    }
    // Ingest, clip uploads and the public SDK config have open CORS (and the uploads their own parsers), each in its own scope.
    await v1.register(ingestRoutes);
    await v1.register(clipIngestRoutes);
    await v1.register(publicSdkConfigRoutes);
    await v1.register(oauthConsentRoutes, oauth);
  }, { prefix: '/v1' });
}
