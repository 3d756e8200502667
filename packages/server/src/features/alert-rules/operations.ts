// The alert rule operations: the site's rules (for any member to read) and creating, changing
// and deleting one (admins). Each rule says which of its channels cannot deliver: email
// delivers only with SMTP_URL, which the app's configuration holds (partOf(ctx, ...)).
import { defineOperation, type OperationAccess } from '../../domain/operation.ts';
import { partOf, type ServiceContext } from '../../domain/context.ts';
import { Deleted } from '../../domain/schema-parts.ts';
import { AlertRuleList, AlertRuleParams, AlertRuleRecord, CreateAlertRuleBody, ListAlertRulesQuery, UpdateAlertRuleBody } from './schemas.ts';
import { createRule, deleteRule, listRules, updateRule } from './service.ts';

/** Reading the rules: a key with manage:write, any user. */
const READ = { scopes: ['manage:write'], role: 'viewer' } as const satisfies OperationAccess;
/** Changing them: a key with manage:write, an admin or owner. */
const ADMIN = { scopes: ['manage:write'], role: 'admin' } as const satisfies OperationAccess;

const delivery = (ctx: ServiceContext) => ({ smtpUrl: partOf(ctx, 'config').smtpUrl });

export const listAlertRulesOp = defineOperation({
  name: 'alert_rules.list',
  summary: 'List the site\'s alert rules',
  access: READ,
  http: { method: 'GET', path: '/manage/alert-rules', surface: 'manage', tags: ['alert-rules'] },
  input: { query: ListAlertRulesQuery },
  output: AlertRuleList,
  run: (ctx, input) => listRules({ ctx, input, delivery: delivery(ctx) }),
});

export const createAlertRuleOp = defineOperation({
  name: 'alert_rules.create',
  summary: 'Create an alert rule',
  access: ADMIN,
  http: { method: 'POST', path: '/manage/alert-rules', surface: 'manage', tags: ['alert-rules'], status: 201 },
  input: { body: CreateAlertRuleBody },
  output: AlertRuleRecord,
  write: { idempotent: false },
  run: (ctx, input) => createRule({ ctx, input, delivery: delivery(ctx) }),
});

export const updateAlertRuleOp = defineOperation({
  name: 'alert_rules.update',
  summary: 'Change an alert rule (partial)',
  access: ADMIN,
  http: { method: 'PATCH', path: '/manage/alert-rules/:rule_id', surface: 'manage', tags: ['alert-rules'] },
  input: { params: AlertRuleParams, body: UpdateAlertRuleBody },
  output: AlertRuleRecord,
  write: { idempotent: true },
  run: (ctx, input) => updateRule({ ctx, input, delivery: delivery(ctx) }),
});

export const deleteAlertRuleOp = defineOperation({
  name: 'alert_rules.delete',
  summary: 'Delete an alert rule',
  access: ADMIN,
  http: { method: 'DELETE', path: '/manage/alert-rules/:rule_id', surface: 'manage', tags: ['alert-rules'] },
  input: { params: AlertRuleParams },
  output: Deleted,
  write: { idempotent: true },
  run: (ctx, input) => deleteRule({ ctx, input }),
});

export const ALERT_RULE_OPERATIONS = [listAlertRulesOp, createAlertRuleOp, updateAlertRuleOp, deleteAlertRuleOp];
