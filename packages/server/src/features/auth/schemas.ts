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
}, { additionalProperties: false, examples: [{ email: 'owner@shop.example', password: 'correct-horse-battery' }] });
export type LoginBody = Static<typeof LoginBody>;

export const LoginResult = Type.Object({
  token: Type.String(),
  expires_at: IsoTime,
  user: Type.Object({ id: Uuid, email: Type.String() }),
  org: Type.Object({ id: Uuid, name: Type.String() }),
  role: OneOf(ROLES),
});

export const SetPasswordBody = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 200 }),
  password: Type.String({ minLength: PASSWORD_MIN, maxLength: PASSWORD_MAX }),
}, { additionalProperties: false });
export type SetPasswordBody = Static<typeof SetPasswordBody>;

export const UserRef = Type.Object({ id: Uuid, email: Type.String() });
