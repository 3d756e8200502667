import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-types.ts';
import { SCOPES } from '../../auth/api-keys.ts';
import { Envelope, ok } from '../../http/envelope.ts';
import { Nullable, Uuid } from '../../domain/schema-parts.ts';
import { QUERY_ACCESS } from '../../http/query.ts';

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
  }, async (request) => {
    const auth = request.auth!;
    const base = { org: { id: auth.org.id, name: auth.org.name }, site: auth.site, key_type: auth.keyType };
    // A user token carries no scopes of its own: it may use every scope, within its role.
    if (auth.kind === 'jwt') return ok({ ...base, scopes: [...SCOPES], user: auth.user!, role: auth.role! });
    return ok({ ...base, scopes: auth.scopes });
  });
}
