// Creates an org with its first site, owner and three site-scoped keys: what `mallard
// bootstrap` prints and what the demo and the tests start from.
import { v7 as uuidv7 } from 'uuid';
import { SCOPES } from '../../auth/api-keys.ts';
import { hashPassword } from '../../auth/passwords.ts';
import type { Secrets } from '../../auth/secrets.ts';
import { AppError } from '../../domain/errors.ts';
import { cleanName } from '../../domain/clean-input.ts';
import type { Store } from '../../store/db.ts';
import { insertKey } from '../keys/service.ts';
import { insertSite } from '../sites/service.ts';

export interface BootstrapInput { org: string; siteName: string; siteUrl: string; email: string; password: string }

export interface BootstrapResult {
  org_id: string;
  site_id: string;
  user_id: string;
  email: string;
  keys: { secret: string; mcp: string; publishable: string };
}

export async function bootstrapOrg(store: Store, secrets: Secrets, input: BootstrapInput, now: number): Promise<BootstrapResult> {
  const email = input.email.trim().toLowerCase();
  const orgName = cleanName(input.org, 'org');
  const passwordHash = await hashPassword(input.password);
  return store.db.transaction().execute(async (trx) => {
    const taken = await trx.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst();
    if (taken) throw new AppError('conflict', 'email already exists');
    const orgId = uuidv7();
    const userId = uuidv7();
    await trx.insertInto('orgs').values({ id: orgId, name: orgName, created_at: now }).execute();
    await trx.insertInto('org_settings').values({ org_id: orgId, duck_facts: 0, updated_at: now }).execute();
    await trx.insertInto('users').values({ id: userId, email, password_hash: passwordHash, name: null, created_at: now, updated_at: now }).execute();
    await trx.insertInto('memberships').values({ id: uuidv7(), org_id: orgId, user_id: userId, role: 'owner', created_at: now, updated_at: now }).execute();
    const site = await insertSite(trx, orgId, { name: input.siteName, url: input.siteUrl }, now);
    const key = (type: 'secret' | 'mcp' | 'publishable', scopes: (typeof SCOPES)[number][]) =>
      insertKey(trx, secrets, { orgId, siteId: site.id, type, scopes, name: `bootstrap ${type}`, createdBy: 'bootstrap', expiresAt: null }, now);
    const secret = await key('secret', [...SCOPES]);
    const mcp = await key('mcp', ['mcp:read']);
    const publishable = await key('publishable', ['ingest:write']);
    await trx.insertInto('audit_log').values({
      id: uuidv7(), org_id: orgId, site_id: site.id, actor_type: 'system', actor_id: null, action: 'org.bootstrapped',
      target_type: 'org', target_id: orgId, details: JSON.stringify({ user_id: userId }), created_at: now,
    }).execute();
    return { org_id: orgId, site_id: site.id, user_id: userId, email, keys: { secret: secret.raw, mcp: mcp.raw, publishable: publishable.raw } };
  });
}
