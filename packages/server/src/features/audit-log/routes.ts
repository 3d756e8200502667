import type { App } from '../../http/app-types.ts';
import { Envelope, ok } from '../../http/envelope.ts';
import { contextOf } from '../../http/context.ts';
import { AuditLogPage, AuditLogQuery } from './schemas.ts';
import { readAuditLog } from './service.ts';

// Like keys and members: a user token with the admin role (a leaked key cannot read who did what).
const access = { surface: 'manage', scopes: ['manage:write'], jwtOnly: true, role: 'admin' } as const;

export async function auditLogRoutes(app: App) {
  app.get('/manage/audit-log', {
    config: { access },
    schema: {
      tags: ['audit'], summary: 'The org\'s audit log, newest first: who changed what, when and from where (never a secret)',
      querystring: AuditLogQuery, response: { 200: Envelope(AuditLogPage) },
    },
  }, async (request) => ok(await readAuditLog({ ctx: contextOf(request), input: request.query })));
}
