import { Type, type Static } from '@sinclair/typebox';
import { PASSWORD_MAX } from '../../auth/passwords.ts';
import { REQUIRE_2FA } from '../../domain/mfa-policy.ts';
import { NullableIsoTime, OneOf, Uuid } from '../../domain/schema-parts.ts';

/** A code as the user types it: 6 digits from the authenticator app (spaces allowed) or, where accepted, a recovery code. */
export const OtpCode = Type.String({ minLength: 1, maxLength: 32, description: 'A 6-digit code from the authenticator app ("123 456" accepted), or a recovery code (xxxx-xxxx) where the route says so' });

export const Require2faEnum = OneOf(REQUIRE_2FA, "Who must sign in with two factors: 'off', 'admins' (roles admin and owner) or 'everyone'");

export const TwoFactorStatus = Type.Object({
  enabled: Type.Boolean({ description: 'Two-factor sign-in is confirmed for this account' }),
  confirmed_at: NullableIsoTime,
  recovery_codes_left: Type.Integer({ minimum: 0, description: 'Unused recovery codes' }),
  required: Type.Boolean({ description: "The org's require_2fa policy applies to this account (in the org signed into)" }),
}, { additionalProperties: false });

export const TwoFactorSetup = Type.Object({
  secret: Type.String({ description: 'The authenticator secret (base32): shown only here, for typing in by hand' }),
  otpauth_url: Type.String({ description: 'otpauth://totp/Mallard:<email>?secret=...&issuer=Mallard: shown only here' }),
  qr_svg: Type.String({ description: 'The otpauth URL as a QR code (an SVG document) for an authenticator app to scan' }),
}, { additionalProperties: false });

export const EnableBody = Type.Object({ code: OtpCode }, { additionalProperties: false });
export type EnableBody = Static<typeof EnableBody>;

export const RecoveryCodes = Type.Array(Type.String(), { minItems: 10, maxItems: 10, description: 'Ten one-time recovery codes (xxxx-xxxx), shown only here; each signs in once in place of a code' });

export const Enabled = Type.Object({ enabled: Type.Literal(true), recovery_codes: RecoveryCodes }, { additionalProperties: false });

export const DisableBody = Type.Object({
  password: Type.String({ minLength: 1, maxLength: PASSWORD_MAX }),
  code: OtpCode,
}, { additionalProperties: false });
export type DisableBody = Static<typeof DisableBody>;

export const Disabled = Type.Object({ enabled: Type.Literal(false) }, { additionalProperties: false });

export const RegenerateBody = Type.Object({ code: OtpCode }, { additionalProperties: false });
export type RegenerateBody = Static<typeof RegenerateBody>;

export const Regenerated = Type.Object({ recovery_codes: RecoveryCodes }, { additionalProperties: false });

export const ResetParams = Type.Object({ id: Type.String() });

export const ResetMember = Type.Object({
  id: Uuid,
  user_id: Uuid,
  reset: Type.Literal(true, { description: 'The member\'s authenticator and recovery codes are gone; they sign in with their password and enrol again' }),
  was_enabled: Type.Boolean({ description: 'Whether the member had two-factor sign-in confirmed' }),
}, { additionalProperties: false });
