// API keys on /manage: listed, minted (shown once) and revoked. A user token with the admin
// role (a leaked key can never mint keys); the operator at the terminal runs the same
// operations (`mallard keys`, cli.ts).
import { Type } from '@sinclair/typebox';
import { partOf } from '../../domain/context.ts';
import { defineOperation } from '../../domain/operation.ts';
import { Deleted } from '../../domain/schema-parts.ts';
import { CreatedKey, CreateKeyBody, KeyParams, KeyRecord, ListKeysQuery } from './schemas.ts';
import { createKey, listKeys, revokeKey } from './service.ts';

const KEYS_ACCESS = { scopes: ['manage:write'], jwtOnly: true, role: 'admin' } as const;

export const listKeysOp = defineOperation({
  name: 'keys.list',
  summary: 'List API keys with their status (never the keys themselves): active and expired ones, revoked ones too with include_revoked=true',
  access: KEYS_ACCESS,
  http: { method: 'GET', path: '/manage/keys', surface: 'manage', tags: ['keys'] },
  input: { query: ListKeysQuery },
  output: Type.Object({ keys: Type.Array(KeyRecord) }),
  run: (ctx, input) => listKeys({ ctx, input }),
});

export const createKeyOp = defineOperation({
  name: 'keys.create',
  summary: 'Create an API key; the key is shown once',
  access: KEYS_ACCESS,
  http: { method: 'POST', path: '/manage/keys', surface: 'manage', tags: ['keys'], status: 201 },
  input: { body: CreateKeyBody },
  output: CreatedKey,
  write: { idempotent: false },
  run: (ctx, input) => createKey({ ctx, input, secrets: partOf(ctx, 'secrets') }),
});

export const revokeKeyOp = defineOperation({
  name: 'keys.revoke',
  summary: 'Revoke an API key; it fails at once',
  access: KEYS_ACCESS,
  http: { method: 'DELETE', path: '/manage/keys/:id', surface: 'manage', tags: ['keys'] },
  input: { params: KeyParams },
  output: Deleted,
  write: { idempotent: false },
  run: (ctx, input) => revokeKey({ ctx, input }),
});

export const KEY_OPERATIONS = [listKeysOp, createKeyOp, revokeKeyOp];
