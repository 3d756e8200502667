import { Type, type Static } from '@sinclair/typebox';
import { Email, IsoTime, OneOf, Uuid } from '../../domain/schema-parts.ts';

/** The roles a just-in-time member may get: never owner (owners are made by owners). */
export const JIT_ROLES = ['viewer', 'member', 'admin'] as const;

/** A DNS name of at least two labels, e.g. `shop.example`; compared lowercased. */
const Domain = Type.String({
  minLength: 3, maxLength: 253, pattern: '^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$',
  description: 'An email domain the org owns, e.g. `shop.example`',
});

export const SsoConnectionRecord = Type.Object({
  org_id: Uuid,
  issuer: Type.String({ description: 'The OpenID provider\'s issuer URL' }),
  client_id: Type.String(),
  client_secret_set: Type.Literal(true, { description: 'The client secret is stored (sealed); it is never returned' }),
  email_domains: Type.Array(Type.String(), { description: 'Sign-ins with an address at these domains go to this provider; JIT members must have one' }),
  jit: Type.Boolean({ description: 'A first SSO sign-in of someone who is not a member adds them at default_role' }),
  default_role: OneOf(JIT_ROLES),
  required: Type.Boolean({ description: 'Members must sign in with SSO; owners keep password sign-in as a break-glass' }),
  enabled: Type.Boolean(),
  callback_url: Type.String({ description: 'The redirect URI to register at the provider: MALLARD_PUBLIC_URL + /v1/auth/sso/callback' }),
  created_at: IsoTime,
  updated_at: IsoTime,
}, { additionalProperties: false });
export type SsoConnectionRecord = Static<typeof SsoConnectionRecord>;

export const PutSsoBody = Type.Object({
  issuer: Type.String({ minLength: 1, maxLength: 500, description: 'https URL of the issuer; its /.well-known/openid-configuration is read to check it' }),
  client_id: Type.String({ minLength: 1, maxLength: 255 }),
  client_secret: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: 'Write-only; required when connecting, kept when absent on a later update' })),
  email_domains: Type.Array(Domain, { maxItems: 50, uniqueItems: true }),
  jit: Type.Optional(Type.Boolean({ default: false })),
  default_role: Type.Optional(OneOf(JIT_ROLES, 'Role of just-in-time members (default viewer)')),
  required: Type.Optional(Type.Boolean({ default: false })),
  enabled: Type.Optional(Type.Boolean({ default: true })),
}, {
  additionalProperties: false,
  examples: [{ issuer: 'https://login.shop.example', client_id: 'mallard', client_secret: 'from-the-provider', email_domains: ['shop.example'], jit: true, default_role: 'viewer' }],
});
export type PutSsoBody = Static<typeof PutSsoBody>;

export const SsoStartQuery = Type.Object({
  email: Email,
  org_id: Type.Optional(Type.String({ maxLength: 64, description: 'Which org, for an address in several' })),
  return_to: Type.Optional(Type.String({ maxLength: 500, pattern: '^/app/', description: 'Where in the dashboard to land (a path under /app/); default /app/' })),
});
export type SsoStartQuery = Static<typeof SsoStartQuery>;

/** What the provider sends back: a code and the state, or an error. Providers add parameters of their own (iss, session_state, scope), so others are let through. */
export const SsoCallbackQuery = Type.Object({
  code: Type.Optional(Type.String({ maxLength: 4096 })),
  state: Type.Optional(Type.String({ maxLength: 512 })),
  error: Type.Optional(Type.String({ maxLength: 256 })),
  error_description: Type.Optional(Type.String({ maxLength: 2048 })),
  iss: Type.Optional(Type.String({ maxLength: 500 })),
}, { additionalProperties: Type.String({ maxLength: 4096 }) });
export type SsoCallbackQuery = Static<typeof SsoCallbackQuery>;
