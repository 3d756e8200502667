// The org's audit log. Like keys and members: a user token with the admin role (a leaked key
// cannot read who did what).
import { defineOperation } from '../../domain/operation.ts';
import { AuditLogPage, AuditLogQuery } from './schemas.ts';
import { readAuditLog } from './service.ts';

export const auditLogOp = defineOperation({
  name: 'audit_log.read',
  summary: 'The org\'s audit log, newest first: who changed what, when and from where (never a secret)',
  access: { scopes: ['manage:write'], jwtOnly: true, role: 'admin' },
  http: { method: 'GET', path: '/manage/audit-log', surface: 'manage', tags: ['audit'] },
  input: { query: AuditLogQuery },
  output: AuditLogPage,
  run: (ctx, input) => readAuditLog({ ctx, input }),
});

export const AUDIT_LOG_OPERATIONS = [auditLogOp];
