// The person's side of OAuth: what the consent screen shows (the client, the person's orgs and
// sites), approving (a grant for the MCP resource, and the choices in oauth_grants) or denying,
// and the connections settings list and revoke. The protocol itself is oidc-provider's (provider.ts).
import type Provider from 'oidc-provider';
import { v7 as uuidv7 } from 'uuid';
import { recordAuditAs } from '../../audit/record.ts';
import { iso, isoOrNull } from '../../clock.ts';
import { roleRank, type Role, type ServiceContext } from '../../domain/context.ts';
import { AppError } from '../../domain/errors.ts';
import { GRANT_TTL_SEC, MCP_SCOPE, type OAuthServer } from './provider.ts';
import type { AccessLevel } from './schemas.ts';

export type Interaction = Awaited<ReturnType<Provider['interactionDetails']>>;
/** What the authorization server is told when the person has chosen (oidc-provider's InteractionResults). */
export type InteractionResult = { login: { accountId: string }; consent: { grantId: string } } | { error: string; error_description: string };

/** Names a client registers are its own claim: shown, stored and listed at most this long. */
const CLIENT_NAME_MAX = 200;

const userOf = (ctx: ServiceContext) => {
  if (!ctx.auth.user) throw new AppError('jwt_required', 'Sign in to approve an application');
  return ctx.auth.user;
};

async function clientOf(server: OAuthServer, interaction: Interaction) {
  const clientId = String(interaction.params.client_id ?? '');
  const client = await server.provider.Client.find(clientId);
  if (!client) throw new AppError('not_found', 'The application that asked is no longer registered; start again from it');
  const name = typeof client.clientName === 'string' && client.clientName.trim() !== '' ? client.clientName.trim().slice(0, CLIENT_NAME_MAX) : null;
  return { client_id: client.clientId, name, redirect_uri: String(interaction.params.redirect_uri ?? '') };
}

/** The person's orgs (with their role) and each org's live sites. */
async function orgsOf(ctx: ServiceContext, userId: string) {
  const memberships = await ctx.db.selectFrom('memberships').innerJoin('orgs', 'orgs.id', 'memberships.org_id')
    .select(['orgs.id', 'orgs.name', 'memberships.role']).where('memberships.user_id', '=', userId).orderBy('orgs.name').execute();
  if (memberships.length === 0) return [];
  const sites = await ctx.db.selectFrom('sites').select(['id', 'org_id', 'name', 'url'])
    .where('org_id', 'in', memberships.map((m) => m.id)).where('deleted_at', 'is', null).orderBy('name').execute();
  return memberships.map((m) => ({
    id: m.id, name: m.name, role: m.role as Role,
    may_write: roleRank(m.role as Role) >= roleRank('member'),
    sites: sites.filter((s) => s.org_id === m.id).map(({ id, name, url }) => ({ id, name, url })),
  }));
}

export async function consentDetails({ ctx, server, interaction }: { ctx: ServiceContext; server: OAuthServer; interaction: Interaction }) {
  const user = userOf(ctx);
  return {
    uid: interaction.uid,
    client: await clientOf(server, interaction),
    orgs: await orgsOf(ctx, user.id),
    expires_at: iso(interaction.exp * 1000),
  };
}

/**
 * The person approves: their role in the chosen org is checked (write needs member or higher),
 * the site must be a live one of that org; then a grant for the MCP resource, and the choices
 * beside it with an audit row. The grant is saved first: should the second write fail, the
 * grant has no connection row, and a token of it authenticates nothing (domain/authenticate.ts).
 */
export async function approveConsent({ ctx, server, interaction: loadInteraction, input }: {
  ctx: ServiceContext; server: OAuthServer; interaction: () => Promise<Interaction>;
  input: { org_id: string; site_id: string | null; access: AccessLevel };
}): Promise<InteractionResult> {
  const user = userOf(ctx);
  const membership = await ctx.db.selectFrom('memberships').select('role')
    .where('user_id', '=', user.id).where('org_id', '=', input.org_id).executeTakeFirst();
  if (!membership) throw new AppError('not_found', 'Org not found');
  if (input.access === 'write' && roleRank(membership.role as Role) < roleRank('member')) {
    throw new AppError('insufficient_role', 'Read and write needs the role member or higher in this org; choose read', { required: 'member' });
  }
  if (input.site_id !== null) {
    const site = await ctx.db.selectFrom('sites').select('id')
      .where('id', '=', input.site_id).where('org_id', '=', input.org_id).where('deleted_at', 'is', null).executeTakeFirst();
    if (!site) throw new AppError('not_found', 'Site not found');
  }
  // The choice is checked before the interaction is read: another org's ids are a 404 first.
  const interaction = await loadInteraction();
  const client = await clientOf(server, interaction);

  const grant = new server.provider.Grant({ accountId: user.id, clientId: client.client_id });
  // The scopes the authorization server lists (openid, offline_access, mcp) are granted as asked;
  // the MCP resource's one scope carries no choice: the choices are in oauth_grants.
  const oidcScopes = String(interaction.params.scope ?? '').split(' ').filter((s) => s === 'openid' || s === 'offline_access' || s === MCP_SCOPE);
  if (oidcScopes.length > 0) grant.addOIDCScope(oidcScopes.join(' '));
  grant.addResourceScope(server.resource, MCP_SCOPE);
  const grantId = await grant.save();

  const id = uuidv7();
  await ctx.db.transaction().execute(async (trx) => {
    await trx.insertInto('oauth_grants').values({
      id, grant_id: grantId, client_id: client.client_id, client_name: client.name ?? client.client_id, redirect_uri: client.redirect_uri,
      user_id: user.id, org_id: input.org_id, site_id: input.site_id, access: input.access,
      created_at: ctx.now, last_used_at: null, revoked_at: null,
    }).execute();
    await recordAuditAs(trx, { orgId: input.org_id, actor: { type: 'user', id: user.id }, now: ctx.now, requestId: ctx.requestId, ip: ctx.ip }, {
      action: 'oauth.approved', targetType: 'oauth_connection', targetId: id, siteId: input.site_id,
      details: { client_id: client.client_id, client_name: client.name, redirect_uri: client.redirect_uri, access: input.access },
    });
  });
  return { login: { accountId: user.id }, consent: { grantId } };
}

export function denyConsent({ ctx }: { ctx: ServiceContext }): InteractionResult {
  userOf(ctx);
  return { error: 'access_denied', error_description: 'The person declined to connect the application' };
}

export type ConnectionScope = 'mine' | 'org';

/** Live connections in the caller's org: the caller's own ('mine'), or everyone's ('org', for admins). */
export async function listConnections({ ctx, input }: { ctx: ServiceContext; input: { scope: ConnectionScope } }) {
  let query = ctx.db.selectFrom('oauth_grants').innerJoin('users', 'users.id', 'oauth_grants.user_id')
    .select(['oauth_grants.id', 'client_id', 'client_name', 'redirect_uri', 'user_id', 'users.email', 'site_id', 'access', 'oauth_grants.created_at', 'last_used_at'])
    .where('oauth_grants.org_id', '=', ctx.auth.org.id).where('revoked_at', 'is', null)
    // A grant past its year has no records left (the hourly maintenance dropped them): not live.
    .where('oauth_grants.created_at', '>', ctx.now - GRANT_TTL_SEC * 1000)
    .orderBy('oauth_grants.created_at', 'desc');
  if (input.scope === 'mine') query = query.where('oauth_grants.user_id', '=', userOf(ctx).id);
  const rows = await query.execute();
  return {
    connections: rows.map((r) => ({
      id: r.id, client_id: r.client_id, client_name: r.client_name, redirect_uri: r.redirect_uri,
      user: { id: r.user_id, email: r.email }, site_id: r.site_id, access: r.access as AccessLevel,
      created_at: iso(Number(r.created_at)), last_used_at: isoOrNull(r.last_used_at === null ? null : Number(r.last_used_at)),
    })),
  };
}

/**
 * Revokes a connection at once: the record is marked, and every token and code of its grant (the
 * refresh tokens and the access tokens alike) is deleted, in one transaction.
 */
export async function revokeConnection({ ctx, input }: { ctx: ServiceContext; input: { id: string; scope: ConnectionScope } }) {
  let query = ctx.db.selectFrom('oauth_grants').select(['id', 'grant_id', 'site_id', 'client_id', 'user_id'])
    .where('id', '=', input.id).where('org_id', '=', ctx.auth.org.id).where('revoked_at', 'is', null);
  if (input.scope === 'mine') query = query.where('user_id', '=', userOf(ctx).id);
  const row = await query.executeTakeFirst();
  if (!row) throw new AppError('not_found', 'Connection not found');
  await ctx.db.transaction().execute(async (trx) => {
    const done = await trx.updateTable('oauth_grants').set({ revoked_at: ctx.now }).where('id', '=', row.id).where('revoked_at', 'is', null).executeTakeFirst();
    if (Number(done.numUpdatedRows) === 0) throw new AppError('not_found', 'Connection not found');
    await trx.deleteFrom('oauth_records').where('grant_id', '=', row.grant_id).execute();
    await recordAuditAs(trx, { orgId: ctx.auth.org.id, actor: { type: 'user', id: userOf(ctx).id }, now: ctx.now, requestId: ctx.requestId, ip: ctx.ip }, {
      action: 'oauth.revoked', targetType: 'oauth_connection', targetId: row.id, siteId: row.site_id,
      details: { client_id: row.client_id, user_id: row.user_id },
    });
  });
  return { id: row.id, deleted: true as const };
}
