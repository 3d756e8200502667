import { Type, type Static } from '@sinclair/typebox';
import { PASSWORD_MAX, PASSWORD_MIN } from '../../auth/passwords.ts';
import { JWT_MAX_SECONDS, JWT_MIN_SECONDS } from '../../auth/jwt.ts';
import { ROLES } from '../../domain/context.ts';
import { Email, IsoTime, OneOf, Uuid } from '../../domain/schema-parts.ts';

export const LoginBody = Type.Object({
  email: Email,
  password: Type.String({ minLength: 1, maxLength: PASSWORD_MAX }),
  org_id: Type.Optional(Type.String({ maxLength: 64, description: 'Which org, for users in several; default the oldest membership' })),
  expires_in: Type.Optional(Type.Integer({ minimum: JWT_MIN_SECONDS, maximum: JWT_MAX_SECONDS, description: 'Token lifetime in seconds' })),
  otp: Type.Optional(Type.String({ minLength: 1, maxLength: 32, description: 'For an account with two-factor sign-in: a 6-digit code from the authenticator app ("123 456" accepted) or an unused recovery code (xxxx-xxxx). Without it such an account is answered 401 mfa_required' })),
}, { additionalProperties: false, examples: [{ email: 'owner@shop.example', password: 'correct-horse-battery' }] });
export type LoginBody = Static<typeof LoginBody>;

/** The dashboard's sign-in: the login's fields but the lifetime, which the server sets (a sliding session). */
export const SessionBody = Type.Omit(LoginBody, ['expires_in'], { additionalProperties: false });
export type SessionBody = Static<typeof SessionBody>;

export const LoginResult = Type.Object({
  token: Type.String(),
  expires_at: IsoTime,
  user: Type.Object({ id: Uuid, email: Type.String() }),
  org: Type.Object({ id: Uuid, name: Type.String() }),
  role: OneOf(ROLES),
  mfa_enrolment_required: Type.Optional(Type.Literal(true, { description: 'The org requires two-factor sign-in of this user, who has not set it up: until they do (POST /v1/auth/2fa/setup, then /enable) every other route answers 403 mfa_enrolment_required' })),
});

export const SetPasswordBody = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 200 }),
  password: Type.String({ minLength: PASSWORD_MIN, maxLength: PASSWORD_MAX }),
}, { additionalProperties: false });
export type SetPasswordBody = Static<typeof SetPasswordBody>;

export const ChangePasswordBody = Type.Object({
  current_password: Type.String({ minLength: 1, maxLength: PASSWORD_MAX }),
  password: Type.String({ minLength: PASSWORD_MIN, maxLength: PASSWORD_MAX, description: 'The new password' }),
}, { additionalProperties: false });
export type ChangePasswordBody = Static<typeof ChangePasswordBody>;

export const SessionResult = Type.Object({
  user: Type.Object({ id: Uuid, email: Type.String() }),
  org: Type.Object({ id: Uuid, name: Type.String() }),
  role: OneOf(ROLES),
  expires_at: IsoTime,
  absolute_expires_at: IsoTime,
  csrf_token: Type.String({ description: 'Send it as the X-CSRF-Token header on every write signed in by the session cookie' }),
  mfa_enrolment_required: Type.Optional(Type.Literal(true, { description: 'The org requires two-factor sign-in and this user has not enrolled: only enrolment answers until then' })),
});

export const UserRef = Type.Object({ id: Uuid, email: Type.String() });
