// Who an org requires to sign in with two factors (org_settings.require_2fa): nobody ('off'),
// its admins ('admins': the roles admin and owner) or everyone. Read by authentication (a user
// the policy covers who has no confirmed second factor may only enrol: 403
// mfa_enrolment_required elsewhere) and by the two-factor feature.
import type { Role } from './context.ts';

export const REQUIRE_2FA = ['off', 'admins', 'everyone'] as const;
export type Require2fa = (typeof REQUIRE_2FA)[number];

/** The stored value as a policy; anything unknown reads as 'off' (the column's default). */
export const require2faOf = (value: string | null | undefined): Require2fa =>
  (REQUIRE_2FA as readonly string[]).includes(value ?? '') ? (value as Require2fa) : 'off';

/** Whether the policy requires two factors of a member with this role. */
export function mfaPolicyCovers(policy: Require2fa, role: Role | null): boolean {
  if (policy === 'everyone') return true;
  return policy === 'admins' && (role === 'admin' || role === 'owner');
}
