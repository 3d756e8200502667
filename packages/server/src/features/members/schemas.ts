import { Type, type Static } from '@sinclair/typebox';
import { Email, IsoTime, OneOf, Uuid } from '../../domain/schema-parts.ts';
import { ROLES } from '../../domain/context.ts';

export const RoleSchema = Type.Union(ROLES.map((r) => Type.Literal(r)));

export const MemberRecord = Type.Object({
  id: Uuid,
  user_id: Uuid,
  email: Type.String(),
  role: OneOf(ROLES),
  status: Type.Union([Type.Literal('active'), Type.Literal('invited')]),
  created_at: IsoTime,
  updated_at: IsoTime,
});
export type MemberRecord = Static<typeof MemberRecord>;

export const CreatedMember = Type.Intersect([MemberRecord, Type.Object({
  invitation: Type.Optional(Type.Object({
    token: Type.String({ description: 'One-time set-password token; shown only here' }),
    expires_at: IsoTime,
    set_password_url: Type.String(),
    emailed: Type.Boolean({ description: 'true: mailed to the new member through SMTP_URL; false: no SMTP_URL, or the mail failed (send the token yourself)' }),
  })),
})]);

export const CreateMemberBody = Type.Object({ email: Email, role: RoleSchema }, { additionalProperties: false });
export type CreateMemberBody = Static<typeof CreateMemberBody>;

export const UpdateMemberBody = Type.Object({ role: RoleSchema }, { additionalProperties: false });
export type UpdateMemberBody = Static<typeof UpdateMemberBody>;

export const MemberParams = Type.Object({ id: Type.String() });

export const UnlockedMember = Type.Object({
  id: Uuid,
  user_id: Uuid,
  unlocked: Type.Literal(true, { description: 'The member may log in again at once; failed logins count from zero' }),
}, { additionalProperties: false });
