import { Type } from '@sinclair/typebox';
import { ROLES } from '../../domain/context.ts';
import { IsoTime, Nullable, NullableIsoTime, OneOf, Uuid } from '../../domain/schema-parts.ts';

export const ACCESS_LEVELS = ['read', 'write'] as const;
export type AccessLevel = (typeof ACCESS_LEVELS)[number];
const AccessLevel = Type.Unsafe<AccessLevel>(OneOf(ACCESS_LEVELS, 'read: the MCP read tools; write: also the write tools (update_issue, ...), for a member or higher'));

/** The interaction's id in the path: what the authorization server made (base64url), not a UUID. */
export const InteractionParams = Type.Object({
  uid: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$', examples: ['yJmV0c3TqMKS0ZIk6kn8v'], description: 'The sign-in\'s id, from the address the authorization server sent the browser to' }),
});

const ConsentSite = Type.Object({ id: Uuid, name: Type.String(), url: Type.String() });
export const ConsentDetails = Type.Object({
  uid: Type.String(),
  client: Type.Object({
    client_id: Type.String(),
    name: Nullable(Type.String({ description: 'The name the client registered itself with (its own claim: not verified)' })),
    redirect_uri: Type.String({ description: 'Where the browser goes back to with the code' }),
  }),
  orgs: Type.Array(Type.Object({
    id: Uuid, name: Type.String(), role: OneOf(ROLES),
    may_write: Type.Boolean({ description: 'Whether read and write can be chosen (member or higher)' }),
    sites: Type.Array(ConsentSite),
  }), { description: 'The orgs the signed-in person belongs to, each with its live sites' }),
  expires_at: IsoTime,
});

export const ApproveBody = Type.Object({
  org_id: Uuid,
  site_id: Type.Union([Uuid, Type.Null()], { description: 'One site of the org, or null for every site of the org' }),
  access: AccessLevel,
}, { additionalProperties: false });

export const InteractionOutcome = Type.Object({
  redirect_to: Type.String({ description: 'Where the browser goes next: the authorization server, which sends it back to the client with a code (or with error=access_denied)' }),
});

export const Connection = Type.Object({
  id: Uuid,
  client_id: Type.String(),
  client_name: Type.String(),
  redirect_uri: Type.String(),
  user: Type.Object({ id: Uuid, email: Type.String() }),
  site_id: Nullable(Uuid),
  access: AccessLevel,
  created_at: IsoTime,
  last_used_at: NullableIsoTime,
});
export const ConnectionList = Type.Object({ connections: Type.Array(Connection) });
export const ConnectionParams = Type.Object({ id: Uuid });
