// Whether an org requires single sign-on of a member, for password sign-in (features/auth) to
// refuse them; apart from service.ts so auth's sign-in and SSO's callback (which opens a
// dashboard session through auth) do not import each other.
import type { Kysely } from 'kysely';
import type { Database } from '../../store/tables.ts';

export const START_PATH = '/v1/auth/sso/start';

/** Where password sign-in sends a member of an org that requires SSO. */
export const startUrl = (email: string, orgId: string) => `${START_PATH}?${new URLSearchParams({ email, org_id: orgId })}`;

/** Whether the org's enabled connection requires SSO of a member at this role (never of owners: their password is the break-glass). */
export async function requiredSso(db: Kysely<Database>, orgId: string, role: string): Promise<boolean> {
  if (role === 'owner') return false;
  const row = await db.selectFrom('sso_connections').select('org_id').where('org_id', '=', orgId)
    .where('enabled', '=', 1).where('required', '=', 1).executeTakeFirst();
  return row !== undefined;
}
