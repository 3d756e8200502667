// The integration operations: the site's integrations (credentials masked), connecting one
// (one per provider per site; its config sealed with the app's secrets, a Slack URL checked
// against the outbound target policy, both from partOf(ctx, ...)) and disconnecting one.
import { partOf } from '../../domain/context.ts';
import { defineOperation, type OperationAccess } from '../../domain/operation.ts';
import { Deleted } from '../../domain/schema-parts.ts';
import { listIntegrations } from './integration-list.ts';
import { ConnectIntegrationBody, IntegrationList, IntegrationParams, IntegrationRecord, ListIntegrationsQuery } from './schemas.ts';
import { connectIntegration, disconnectIntegration } from './service.ts';

/** Reading the integrations: a key with manage:write, any user. */
const READ = { scopes: ['manage:write'], role: 'viewer' } as const satisfies OperationAccess;
/** Connecting or disconnecting one: a key with manage:write, an admin or owner. */
const ADMIN = { scopes: ['manage:write'], role: 'admin' } as const satisfies OperationAccess;

export const listIntegrationsOp = defineOperation({
  name: 'integrations.list',
  summary: 'The site\'s integrations, credentials masked',
  access: READ,
  http: { method: 'GET', path: '/manage/integrations', surface: 'manage', tags: ['integrations'] },
  input: { query: ListIntegrationsQuery },
  output: IntegrationList,
  run: (ctx, input) => listIntegrations({ ctx, input }),
});

export const connectIntegrationOp = defineOperation({
  name: 'integrations.connect',
  summary: 'Connect Slack, PagerDuty, Linear or GitHub (one per provider per site)',
  access: ADMIN,
  http: { method: 'POST', path: '/manage/integrations', surface: 'manage', tags: ['integrations'], status: 201, errors: ['conflict'] },
  input: { body: ConnectIntegrationBody },
  output: IntegrationRecord,
  write: { idempotent: false },
  run: (ctx, input) => connectIntegration({ ctx, input, secrets: partOf(ctx, 'secrets'), policy: partOf(ctx, 'targets') }),
});

export const disconnectIntegrationOp = defineOperation({
  name: 'integrations.disconnect',
  summary: 'Disconnect an integration',
  access: ADMIN,
  http: { method: 'DELETE', path: '/manage/integrations/:id', surface: 'manage', tags: ['integrations'] },
  input: { params: IntegrationParams },
  output: Deleted,
  write: { idempotent: true },
  run: (ctx, input) => disconnectIntegration({ ctx, input }),
});

export const INTEGRATION_OPERATIONS = [listIntegrationsOp, connectIntegrationOp, disconnectIntegrationOp];
