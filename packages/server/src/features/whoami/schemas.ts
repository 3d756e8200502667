import { Type } from '@sinclair/typebox';
import { Nullable, Uuid } from '../../domain/schema-parts.ts';

export const Whoami = Type.Object({
  org: Type.Object({ id: Uuid, name: Type.String() }),
  site: Nullable(Type.Object({ id: Uuid, name: Type.String(), url: Type.String() })),
  key_type: Type.String({ description: 'secret, mcp, publishable or jwt' }),
  scopes: Type.Array(Type.String()),
  user: Type.Optional(Type.Object({ id: Uuid, email: Type.String() })),
  role: Type.Optional(Type.String()),
});
