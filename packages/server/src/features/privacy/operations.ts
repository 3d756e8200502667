// A person's data (by visitor_id or user_ref): exported as streamed JSON, or erased. A user
// token with the admin role, like keys and the audit log; the operator at the terminal runs the
// same operations (`mallard privacy`, cli.ts).
import { Type } from '@sinclair/typebox';
import { partOf } from '../../domain/context.ts';
import { defineOperation } from '../../domain/operation.ts';
import { ErasureResult, SUBJECT_KEYS, SubjectQuery } from './schemas.ts';
import { eraseSubject, exportSubject } from './service.ts';

const PRIVACY_ACCESS = { scopes: ['manage:write'], jwtOnly: true, role: 'admin' } as const;

export const exportSubjectOp = defineOperation({
  name: 'privacy.export',
  summary: 'Everything stored about one person (by visitor_id or user_ref): their sessions, events and signals, as streamed JSON',
  access: PRIVACY_ACCESS,
  http: {
    method: 'GET', path: '/manage/privacy/export', surface: 'manage', tags: ['privacy'],
    download: { mediaType: 'application/json', description: 'The envelope, streamed: data holds subject, exported_at, sessions, events and signals (every stored field)' },
    exactlyOneOf: SUBJECT_KEYS,
  },
  input: { query: SubjectQuery },
  output: Type.Unsafe({ type: 'object', properties: { data: { type: 'object', description: 'subject, exported_at, sessions, events and signals, every stored field' }, error: { type: 'null' } } }),
  run: (ctx, input) => exportSubject({ ctx, input, secrets: partOf(ctx, 'secrets') }),
});

export const eraseSubjectOp = defineOperation({
  name: 'privacy.erase',
  summary: 'Erase one person (by visitor_id or user_ref): their sessions, events, signals and issue evidence; aggregates stay. Erasing again finds nothing',
  access: PRIVACY_ACCESS,
  http: { method: 'DELETE', path: '/manage/privacy/subject', surface: 'manage', tags: ['privacy'], exactlyOneOf: SUBJECT_KEYS },
  input: { query: SubjectQuery },
  output: ErasureResult,
  write: { idempotent: true },
  run: (ctx, input) => eraseSubject({ ctx, input, secrets: partOf(ctx, 'secrets') }),
});

export const PRIVACY_OPERATIONS = [exportSubjectOp, eraseSubjectOp];
