import { Type } from '@sinclair/typebox';
import { KEY_TYPES, SCOPES } from '../../auth/api-keys.ts';
import { ROLES } from '../../domain/context.ts';
import { Nullable, OneOf, Uuid } from '../../domain/schema-parts.ts';

export const Whoami = Type.Object({
  org: Type.Object({ id: Uuid, name: Type.String() }),
  site: Nullable(Type.Object({ id: Uuid, name: Type.String(), url: Type.String() })),
  key_type: OneOf([...KEY_TYPES, 'jwt', 'oauth'], 'The credential: an API key of one of these types, a user token (jwt), or an OAuth access token Mallard issued (oauth: the MCP endpoint only, with the user and role it acts for)'),
  scopes: Type.Array(OneOf(SCOPES)),
  user: Type.Optional(Type.Object({ id: Uuid, email: Type.String() })),
  role: Type.Optional(OneOf(ROLES)),
  mfa_enrolment_required: Type.Optional(Type.Literal(true, { description: 'Present for a user the org requires to sign in with two factors who has not enrolled: only enrolment routes answer them until they do (POST /v1/auth/2fa/setup)' })),
});
