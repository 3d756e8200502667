import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-types.ts';
import { Envelope, ok } from '../../http/envelope.ts';
import { contextOf } from '../../http/context.ts';
import { Deleted } from '../../domain/schema-parts.ts';
import { CreatedKey, CreateKeyBody, KeyParams, KeyRecord, ListKeysQuery } from './schemas.ts';
import { createKey, listKeys, revokeKey } from './service.ts';

// Keys need a user token (a leaked key can never mint keys) and the admin role.
const access = { surface: 'manage', scopes: ['manage:write'], jwtOnly: true, role: 'admin' } as const;

export async function keyRoutes(app: App) {
  const { secrets } = app.services;

  app.get('/manage/keys', {
    config: { access },
    schema: { tags: ['keys'], summary: 'List API keys with their status (never the keys themselves): active and expired ones, revoked ones too with include_revoked=true', querystring: ListKeysQuery, response: { 200: Envelope(Type.Object({ keys: Type.Array(KeyRecord) })) } },
  }, async (request) => ok(await listKeys({ ctx: contextOf(request), input: request.query })));

  app.post('/manage/keys', {
    config: { access },
    schema: { tags: ['keys'], summary: 'Create an API key; the key is shown once', body: CreateKeyBody, response: { 201: Envelope(CreatedKey) } },
  }, async (request, reply) => {
    reply.code(201);
    return ok(await createKey({ ctx: contextOf(request), input: request.body, secrets }));
  });

  app.delete('/manage/keys/:id', {
    config: { access },
    schema: { tags: ['keys'], summary: 'Revoke an API key; it fails at once', params: KeyParams, response: { 200: Envelope(Deleted) } },
  }, async (request) => ok(await revokeKey({ ctx: contextOf(request), input: request.params })));
}
