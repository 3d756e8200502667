// The operation catalog: every operation declared in a feature's operations.ts, in one list.
// Its HTTP routes, MCP tools and CLI commands are derived from these declarations
// (domain/operation.ts); test/catalog.test.ts fails when a face declares its own schema or
// access for an operation listed here.
import type { Operation } from '../domain/operation.ts';
import { ALERT_RULE_OPERATIONS } from './alert-rules/operations.ts';
import { ALERT_OPERATIONS } from './alerts/operations.ts';
import { AUDIT_LOG_OPERATIONS } from './audit-log/operations.ts';
import { CLIP_OPERATIONS } from './clips/operations.ts';
import { ANNOTATION_OPERATIONS } from './annotations/operations.ts';
import { DEPLOY_OPERATIONS } from './deploys/operations.ts';
import { FUNNEL_OPERATIONS } from './funnels/operations.ts';
import { HEATMAP_OPERATIONS } from './heatmaps/operations.ts';
import { INTEGRATION_OPERATIONS } from './integrations/operations.ts';
import { ISSUE_OPERATIONS } from './issues/operations.ts';
import { JOURNEY_OPERATIONS } from './journeys/operations.ts';
import { KEY_OPERATIONS } from './keys/operations.ts';
import { MCP_CONTEXT_OPERATIONS } from './mcp-context/operations.ts';
import { MEMBER_OPERATIONS } from './members/operations.ts';
import { PRIVACY_OPERATIONS } from './privacy/operations.ts';
import { RAW_OPERATIONS } from './raw/operations.ts';
import { REVENUE_OPERATIONS } from './revenue/operations.ts';
import { SCORE_OPERATIONS } from './scores/operations.ts';
import { SDK_CONFIG_OPERATIONS } from './sdk-config/operations.ts';
import { SESSION_OPERATIONS } from './sessions/operations.ts';
import { SETTINGS_OPERATIONS } from './settings/operations.ts';
import { SITE_OPERATIONS } from './sites/operations.ts';
import { TICKET_OPERATIONS } from './tickets/operations.ts';
import { WEBHOOK_OPERATIONS } from './webhooks/operations.ts';
import { WHOAMI_OPERATIONS } from './whoami/operations.ts';

/**
 * In the order the OpenAPI document lists their paths: http/catalog-routes.ts registers the
 * routes in this order, and the document lists paths in the order their routes were registered.
 */
export const CATALOG: readonly Operation<any, any>[] = [
  ...WHOAMI_OPERATIONS, ...SITE_OPERATIONS, ...MEMBER_OPERATIONS, ...KEY_OPERATIONS, ...SETTINGS_OPERATIONS, ...AUDIT_LOG_OPERATIONS, ...PRIVACY_OPERATIONS,
  ...SESSION_OPERATIONS, ...CLIP_OPERATIONS, ...HEATMAP_OPERATIONS, ...JOURNEY_OPERATIONS, ...FUNNEL_OPERATIONS, ...RAW_OPERATIONS,
  ...SCORE_OPERATIONS, ...DEPLOY_OPERATIONS, ...ANNOTATION_OPERATIONS, ...ISSUE_OPERATIONS, ...REVENUE_OPERATIONS, ...SDK_CONFIG_OPERATIONS,
  ...ALERT_RULE_OPERATIONS, ...ALERT_OPERATIONS, ...WEBHOOK_OPERATIONS, ...INTEGRATION_OPERATIONS, ...TICKET_OPERATIONS, ...MCP_CONTEXT_OPERATIONS,
];
