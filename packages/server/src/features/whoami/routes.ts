import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-types.ts';
import { Envelope, ok } from '../../http/envelope.ts';
import { contextOf } from '../../http/context.ts';
import { Nullable, Uuid } from '../../domain/schema-parts.ts';
import { QUERY_ACCESS } from '../../http/query.ts';
import { whoami } from './service.ts';

const Whoami = Type.Object({
  org: Type.Object({ id: Uuid, name: Type.String() }),
  site: Nullable(Type.Object({ id: Uuid, name: Type.String(), url: Type.String() })),
  key_type: Type.String({ description: 'secret, mcp, publishable or jwt' }),
  scopes: Type.Array(Type.String()),
  user: Type.Optional(Type.Object({ id: Uuid, email: Type.String() })),
  role: Type.Optional(Type.String()),
});

export async function whoamiRoutes(app: App) {
  app.get('/query/whoami', {
    config: { access: QUERY_ACCESS },
    schema: { tags: ['query'], summary: 'The calling credential: org, site, type and scopes', response: { 200: Envelope(Whoami) } },
  }, async (request) => ok(whoami({ ctx: contextOf(request) })));
}
