// oidc-provider's storage, in our database (both dialects): one table for every model the
// authorization server keeps (store/migrations/0021-oauth.ts). A record is found by the HMAC of
// its id, since a token's id is the token; its payload is sealed and never holds the id itself.
// Expiry is kept by the injected clock; the provider checks a token's own `exp` as well.
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.ts';
import { oauthIdHash, oauthIdHashes } from '../../auth/oauth-records.ts';
import type { Secrets } from '../../auth/secrets.ts';
import type { Database } from '../../store/tables.ts';
import { SECOND_MS } from '../../domain/time.ts';

export interface AdapterDeps { db: Kysely<Database>; secrets: Secrets; clock: Clock }

/** The adapter class oidc-provider instantiates once per model (its `name`). */
export function adapterFor(deps: AdapterDeps) {
  return class OAuthRecordAdapter implements Adapter {
    constructor(readonly name: string) {}

    async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      const { db, secrets, clock } = deps;
      const now = clock.now();
      // The id (for a token, the token itself) is kept only as its HMAC.
      const { jti: _jti, ...rest } = payload;
      const grantId = this.name === 'Grant' ? id : (payload.grantId ?? null);
      const row = {
        payload: secrets.encrypt(JSON.stringify(rest)),
        grant_id: grantId,
        uid_hash: payload.uid ? oauthIdHash(secrets, `${this.name}-uid`, payload.uid) : null,
        expires_at: expiresIn ? now + expiresIn * SECOND_MS : null,
      };
      await db.insertInto('oauth_records')
        .values({ model: this.name, id_hash: oauthIdHash(secrets, this.name, id), consumed_at: null, ...row })
        .onConflict((oc) => oc.columns(['model', 'id_hash']).doUpdateSet(row))
        .execute();
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      const row = await deps.db.selectFrom('oauth_records').select(['payload', 'expires_at', 'consumed_at'])
        .where('model', '=', this.name).where('id_hash', 'in', oauthIdHashes(deps.secrets, this.name, id)).executeTakeFirst();
      return this.open(row, id);
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      const row = await deps.db.selectFrom('oauth_records').select(['payload', 'expires_at', 'consumed_at'])
        .where('model', '=', this.name).where('uid_hash', 'in', oauthIdHashes(deps.secrets, `${this.name}-uid`, uid)).executeTakeFirst();
      // A session's id is its cookie's value; the provider finds it by its uid only to read it.
      return this.open(row, undefined);
    }

    async findByUserCode(): Promise<AdapterPayload | undefined> {
      // The device flow is off: no record has a user code.
      return undefined;
    }

    async consume(id: string): Promise<void> {
      await deps.db.updateTable('oauth_records').set({ consumed_at: deps.clock.now() })
        .where('model', '=', this.name).where('id_hash', 'in', oauthIdHashes(deps.secrets, this.name, id)).execute();
    }

    async destroy(id: string): Promise<void> {
      const { db, secrets, clock } = deps;
      await db.transaction().execute(async (trx) => {
        await trx.deleteFrom('oauth_records').where('model', '=', this.name).where('id_hash', 'in', oauthIdHashes(secrets, this.name, id)).execute();
        // A grant the provider ends (the client revoked its refresh token, or reused a rotated
        // one) ends the connection listed in settings too.
        if (this.name === 'Grant') {
          await trx.updateTable('oauth_grants').set({ revoked_at: clock.now() }).where('grant_id', '=', id).where('revoked_at', 'is', null).execute();
        }
      });
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await deps.db.deleteFrom('oauth_records').where('model', '=', this.name).where('grant_id', '=', grantId).execute();
    }

    private open(row: { payload: string; expires_at: number | null; consumed_at: number | null } | undefined, id: string | undefined): AdapterPayload | undefined {
      if (!row || (row.expires_at !== null && row.expires_at <= deps.clock.now())) return undefined;
      let payload: AdapterPayload;
      try {
        payload = JSON.parse(deps.secrets.decrypt(row.payload)) as AdapterPayload;
      } catch {
        // Sealed under a secret no longer in the keyring: as good as gone.
        return undefined;
      }
      return {
        ...payload,
        ...(id !== undefined ? { jti: id } : {}),
        ...(row.consumed_at !== null ? { consumed: Math.floor(row.consumed_at / SECOND_MS) } : {}),
      };
    }
  };
}
