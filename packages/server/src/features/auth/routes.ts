// POST /v1/auth/login issues a user JWT; /logout revokes it; /set-password redeems an
// invitation or reset token. A failed login never says which part was wrong.
import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-types.ts';
import { iso } from '../../clock.ts';
import { hashPassword, PASSWORD_MAX, PASSWORD_MIN, verifyPassword } from '../../auth/passwords.ts';
import { JWT_DEFAULT_SECONDS, JWT_MAX_SECONDS, JWT_MIN_SECONDS, signUserToken } from '../../auth/jwt.ts';
import { AppError, invalidInput } from '../../domain/errors.ts';
import { Envelope, ok } from '../../http/envelope.ts';
import { Email, IsoTime, Uuid } from '../../domain/schema-parts.ts';
import { enforceLoginLimit } from '../../http/limits.ts';
import { assertUuid } from '../../domain/tenancy.ts';

const Password = Type.String({ minLength: PASSWORD_MIN, maxLength: PASSWORD_MAX });

const LoginBody = Type.Object({
  email: Email,
  password: Type.String({ minLength: 1, maxLength: PASSWORD_MAX }),
  org_id: Type.Optional(Type.String({ maxLength: 64, description: 'Which org, for users in several; default the oldest membership' })),
  expires_in: Type.Optional(Type.Integer({ minimum: JWT_MIN_SECONDS, maximum: JWT_MAX_SECONDS, description: 'Token lifetime in seconds' })),
}, { additionalProperties: false, examples: [{ email: 'owner@shop.example', password: 'correct-horse-battery' }] });

const LoginResult = Type.Object({
  token: Type.String(),
  expires_at: IsoTime,
  user: Type.Object({ id: Uuid, email: Type.String() }),
  org: Type.Object({ id: Uuid, name: Type.String() }),
  role: Type.String(),
});

const SetPasswordBody = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }), password: Password }, { additionalProperties: false });

const badLogin = () => new AppError('invalid_credentials', 'Email or password is incorrect');

export async function authRoutes(app: App) {
  const { store, clock, secrets, limiter } = app.services;

  app.post('/auth/login', {
    config: { access: { surface: 'auth' }, docs: { errors: ['invalid_credentials', 'invalid_uuid', 'rate_limited'] } },
    schema: { tags: ['auth'], summary: 'Log in and get a user token (JWT)', body: LoginBody, response: { 200: Envelope(LoginResult) } },
  }, async (request) => {
    const now = clock.now();
    const email = request.body.email.trim().toLowerCase();
    await enforceLoginLimit(limiter, email, request.ip, now);
    const user = await store.db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
    // verifyPassword spends the same time whether or not the user exists.
    const valid = await verifyPassword(request.body.password, user?.password_hash ?? null);
    if (!user || !valid) throw badLogin();
    let memberships = store.db.selectFrom('memberships').innerJoin('orgs', 'orgs.id', 'memberships.org_id')
      .select(['orgs.id', 'orgs.name', 'memberships.role']).where('memberships.user_id', '=', user.id);
    if (request.body.org_id) memberships = memberships.where('orgs.id', '=', assertUuid(request.body.org_id, 'org_id'));
    const membership = await memberships.orderBy('memberships.created_at', 'asc').executeTakeFirst();
    if (!membership) throw badLogin();
    const ttl = request.body.expires_in ?? JWT_DEFAULT_SECONDS;
    const { token, expiresAt } = await signUserToken(secrets, user.id, membership.id, now, ttl);
    return ok({
      token,
      expires_at: iso(expiresAt),
      user: { id: user.id, email: user.email },
      org: { id: membership.id, name: membership.name },
      role: membership.role,
    });
  });

  app.post('/auth/logout', {
    config: { access: { surface: 'auth', jwtOnly: true, bodyRequired: false } },
    schema: { tags: ['auth'], summary: 'Revoke the calling user token', response: { 200: Envelope(Type.Object({ revoked: Type.Boolean() })) } },
  }, async (request) => {
    const auth = request.auth!;
    await store.db.insertInto('revoked_tokens').values({ jti: auth.jti!, expires_at: auth.tokenExpiresAt! })
      .onConflict((oc) => oc.column('jti').doNothing()).execute();
    // Revocations outlive their tokens by nothing: drop the ones that expired anyway.
    await store.db.deleteFrom('revoked_tokens').where('expires_at', '<', clock.now()).execute();
    return ok({ revoked: true });
  });

  app.post('/auth/set-password', {
    config: { access: { surface: 'auth' } },
    schema: { tags: ['auth'], summary: 'Set a password with an invitation or reset token', body: SetPasswordBody, response: { 200: Envelope(Type.Object({ user: Type.Object({ id: Uuid, email: Type.String() }) })) } },
  }, async (request) => {
    const now = clock.now();
    const hash = secrets.hmac('token', request.body.token);
    const passwordHash = await hashPassword(request.body.password);
    const user = await store.db.transaction().execute(async (trx) => {
      const token = await trx.selectFrom('user_tokens').selectAll().where('token_hash', '=', hash).executeTakeFirst();
      if (!token || token.used_at !== null || token.expires_at <= now) throw invalidInput('token', 'is invalid, used or expired');
      // Claim the token first so two concurrent redemptions cannot both succeed.
      const claimed = await trx.updateTable('user_tokens').set({ used_at: now }).where('id', '=', token.id).where('used_at', 'is', null).executeTakeFirst();
      if (Number(claimed.numUpdatedRows) !== 1) throw invalidInput('token', 'is invalid, used or expired');
      return trx.updateTable('users').set({ password_hash: passwordHash, updated_at: now })
        .where('id', '=', token.user_id).returning(['id', 'email']).executeTakeFirstOrThrow();
    });
    return ok({ user });
  });
}
