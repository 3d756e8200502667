import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-types.ts';
import { Envelope, ok } from '../../http/envelope.ts';
import { Deleted, SiteIdQuery } from '../../domain/schema-parts.ts';
import { CreatedKey, CreateKeyBody, KeyParams, KeyRecord } from './schemas.ts';
import { createKey, listKeys, revokeKey } from './service.ts';

// Keys need a user token (a leaked key can never mint keys) and the admin role.
const access = { surface: 'manage', scopes: ['manage:write'], jwtOnly: true, role: 'admin' } as const;

export async function keyRoutes(app: App) {
  const { store, clock, secrets } = app.services;

  app.get('/manage/keys', {
    config: { access },
    schema: { tags: ['keys'], summary: 'List active API keys (never the keys themselves)', querystring: SiteIdQuery, response: { 200: Envelope(Type.Object({ keys: Type.Array(KeyRecord) })) } },
  }, async (request) => ok({ keys: await listKeys(store, request.auth!, request.query.site_id) }));

  app.post('/manage/keys', {
    config: { access },
    schema: { tags: ['keys'], summary: 'Create an API key; the key is shown once', body: CreateKeyBody, response: { 201: Envelope(CreatedKey) } },
  }, async (request, reply) => {
    reply.code(201);
    return ok(await createKey(store, secrets, request.auth!, request.body, clock.now()));
  });

  app.delete('/manage/keys/:id', {
    config: { access },
    schema: { tags: ['keys'], summary: 'Revoke an API key; it fails at once', params: KeyParams, response: { 200: Envelope(Deleted) } },
  }, async (request) => {
    await revokeKey(store, request.auth!, request.params.id, clock.now());
    return ok({ id: request.params.id, deleted: true });
  });
}
