// Who the caller is: org, site, credential type and scopes, straight from authentication.
import { SCOPES } from '../../auth/api-keys.ts';
import type { ServiceContext } from '../../domain/context.ts';

export function whoami({ ctx }: { ctx: Pick<ServiceContext, 'auth'> }) {
  const { auth } = ctx;
  const base = { org: { id: auth.org.id, name: auth.org.name }, site: auth.site, key_type: auth.keyType };
  // A user token carries no scopes of its own: it may use every scope, within its role.
  if (auth.kind === 'jwt') {
    return { ...base, scopes: [...SCOPES], user: auth.user!, role: auth.role!, ...(auth.mfaEnrolmentRequired ? { mfa_enrolment_required: true as const } : {}) };
  }
  // An OAuth token acts for a person, within what they approved (the scopes) and their role.
  if (auth.keyType === 'oauth') return { ...base, scopes: auth.scopes, user: auth.user!, role: auth.role! };
  return { ...base, scopes: auth.scopes };
}
