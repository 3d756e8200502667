import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-types.ts';
import { contextOf } from '../../http/context.ts';
import { Envelope, ok } from '../../http/envelope.ts';
import { SdkConfigPatch, SdkConfigRecord } from '../../domain/sdk-config.ts';
import { listConfigs, patchConfig } from './service.ts';

export async function sdkConfigRoutes(app: App) {
  app.get('/manage/sdk-config', {
    config: { access: { surface: 'manage', scopes: ['manage:write'], role: 'viewer' } },
    schema: {
      tags: ['sdk-config'], summary: 'The site\'s SDK config, per environment',
      querystring: Type.Object({ site_id: Type.Optional(Type.String({ maxLength: 64 })) }),
      response: { 200: Envelope(Type.Object({ site_id: Type.String(), environments: Type.Array(SdkConfigRecord) })) },
    },
  }, async (request) => ok(await listConfigs({ ctx: contextOf(request), input: request.query })));

  app.patch('/manage/sdk-config/:environment', {
    config: { access: { surface: 'manage', scopes: ['manage:write'], role: 'admin' } },
    schema: {
      tags: ['sdk-config'], summary: 'Change settings of one environment (a key set to null is removed)',
      // As the service checks it (ENVIRONMENT_PATTERN), so the document says the real limit.
      params: Type.Object({ environment: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_.-]+$', description: '1 to 64 letters, digits, dots, dashes or underscores' }) }),
      querystring: Type.Object({ site_id: Type.Optional(Type.String({ maxLength: 64 })) }),
      body: SdkConfigPatch, response: { 200: Envelope(SdkConfigRecord) },
    },
  }, async (request) => ok(await patchConfig({ ctx: contextOf(request), input: { ...request.body, ...request.query, ...request.params } })));
}
