import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-types.ts';
import { Envelope, ok } from '../../http/envelope.ts';
import { contextOf } from '../../http/context.ts';
import { Deleted } from '../../domain/schema-parts.ts';
import { AlertRuleRecord, CreateAlertRuleBody, UpdateAlertRuleBody } from './schemas.ts';
import { createRule, deleteRule, listRules, updateRule } from './service.ts';

const write = { surface: 'manage', scopes: ['manage:write'], role: 'admin' } as const;
const Params = Type.Object({ rule_id: Type.String() });

export async function alertRuleRoutes(app: App) {
  // Email delivers only with SMTP_URL: each rule says which of its channels cannot deliver.
  const delivery = { smtpUrl: app.services.config.smtpUrl };
  app.get('/manage/alert-rules', {
    config: { access: { ...write, role: 'viewer' } },
    schema: {
      tags: ['alert-rules'], summary: 'List the site\'s alert rules',
      querystring: Type.Object({ site_id: Type.Optional(Type.String({ maxLength: 64 })) }),
      response: { 200: Envelope(Type.Object({ rules: Type.Array(AlertRuleRecord) })) },
    },
  }, async (request) => ok(await listRules({ ctx: contextOf(request), input: request.query, delivery })));

  app.post('/manage/alert-rules', {
    config: { access: write },
    schema: { tags: ['alert-rules'], summary: 'Create an alert rule', body: CreateAlertRuleBody, response: { 201: Envelope(AlertRuleRecord) } },
  }, async (request, reply) => {
    reply.code(201);
    return ok(await createRule({ ctx: contextOf(request), input: request.body, delivery }));
  });

  app.patch('/manage/alert-rules/:rule_id', {
    config: { access: write },
    schema: { tags: ['alert-rules'], summary: 'Change an alert rule (partial)', params: Params, body: UpdateAlertRuleBody, response: { 200: Envelope(AlertRuleRecord) } },
  }, async (request) => ok(await updateRule({ ctx: contextOf(request), input: { ...request.body, ...request.params }, delivery })));

  app.delete('/manage/alert-rules/:rule_id', {
    config: { access: write },
    schema: { tags: ['alert-rules'], summary: 'Delete an alert rule', params: Params, response: { 200: Envelope(Deleted) } },
  }, async (request) => ok(await deleteRule({ ctx: contextOf(request), input: request.params })));
}
