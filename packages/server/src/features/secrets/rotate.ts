// `mallard secret rotate`: every sealed value still sealed under MALLARD_SECRET_PREVIOUS (webhook
// secrets, integration credentials, kept Idempotency-Key answers, users' TOTP secrets, SSO
// client secrets and the PKCE verifiers of unfinished SSO sign-ins) is
// re-sealed under MALLARD_SECRET, one transaction per table. Hashes are not re-hashed: an
// HMAC of a key or token cannot be recomputed without the key, which is never stored. API keys
// are re-hashed one by one on their next use (domain/authenticate.ts); invitation and reset
// tokens verify against both secrets until they expire.
import type { Kysely, Transaction } from 'kysely';
import type { Secrets } from '../../auth/secrets.ts';
import type { Database } from '../../store/tables.ts';

export interface SealedTableCounts {
  table: string;
  /** Rows re-sealed under the current secret. */
  resealed: number;
  /** Rows already sealed under the current secret: nothing to do. */
  current: number;
  /** Rows neither secret opens (left as they are: no secret of this keyring can read them). */
  unreadable: number;
}

export interface RotationReport {
  sealed: SealedTableCounts[];
  /** Keys not revoked: each verifies against both secrets and is re-hashed on its next use. */
  apiKeys: number;
  /** Unused, unexpired invitation and reset tokens: they verify against both secrets until they expire. */
  userTokens: number;
  /** Users with unused 2FA recovery codes: HMACs that verify against both secrets, and that stop working with the previous secret if made under it. */
  recoveryCodeUsers: number;
}

type Outcome = 'resealed' | 'current' | 'unreadable';

/** Re-seals the stale values of one row; null columns stay null. */
function reseal(secrets: Secrets, values: (string | null)[]): { outcome: Outcome; values: (string | null)[] } {
  let outcome: Outcome = 'current';
  const next = values.map((value) => {
    if (value === null) return null;
    let opened;
    try {
      opened = secrets.open(value);
    } catch {
      outcome = 'unreadable';
      return value;
    }
    if (!opened.stale) return value;
    if (outcome === 'current') outcome = 'resealed';
    return secrets.encrypt(opened.plain);
  });
  return { outcome, values: next };
}

async function resealTable<Row>(
  db: Kysely<Database>, secrets: Secrets, table: string,
  load: (trx: Transaction<Database>) => Promise<Row[]>,
  sealedOf: (row: Row) => (string | null)[],
  save: (trx: Transaction<Database>, row: Row, values: (string | null)[]) => Promise<boolean>,
): Promise<SealedTableCounts> {
  return db.transaction().execute(async (trx) => {
    const counts: SealedTableCounts = { table, resealed: 0, current: 0, unreadable: 0 };
    for (const row of await load(trx)) {
      const before = sealedOf(row);
      const { outcome, values } = reseal(secrets, before);
      // A row some columns of which were re-sealed is saved even if another is unreadable.
      const changed = values.some((value, i) => value !== before[i]);
      // Saved only if the row still holds what was read: a concurrent change (sealed under the
      // current secret by a server already running with it) is left alone.
      if (changed && !(await save(trx, row, values))) { counts.current++; continue; }
      counts[outcome]++;
    }
    return counts;
  });
}

export async function rotateSecrets(db: Kysely<Database>, secrets: Secrets, now: number): Promise<RotationReport> {
  const sealed: SealedTableCounts[] = [];
  sealed.push(await resealTable(db, secrets, 'webhooks',
    (trx) => trx.selectFrom('webhooks').select(['id', 'secret_enc', 'previous_secret_enc']).execute(),
    (row) => [row.secret_enc, row.previous_secret_enc],
    async (trx, row, [secretEnc, previousEnc]) => {
      let query = trx.updateTable('webhooks').set({ secret_enc: secretEnc!, previous_secret_enc: previousEnc })
        .where('id', '=', row.id).where('secret_enc', '=', row.secret_enc);
      query = row.previous_secret_enc === null ? query.where('previous_secret_enc', 'is', null) : query.where('previous_secret_enc', '=', row.previous_secret_enc);
      return Number((await query.executeTakeFirst()).numUpdatedRows) === 1;
    }));
  sealed.push(await resealTable(db, secrets, 'integrations',
    (trx) => trx.selectFrom('integrations').select(['id', 'config_enc']).execute(),
    (row) => [row.config_enc],
    async (trx, row, [configEnc]) => Number((await trx.updateTable('integrations').set({ config_enc: configEnc! })
      .where('id', '=', row.id).where('config_enc', '=', row.config_enc).executeTakeFirst()).numUpdatedRows) === 1));
  sealed.push(await resealTable(db, secrets, 'idempotency_keys',
    (trx) => trx.selectFrom('idempotency_keys').select(['credential', 'key', 'response']).where('response', 'is not', null).execute(),
    (row) => [row.response],
    async (trx, row, [response]) => Number((await trx.updateTable('idempotency_keys').set({ response })
      .where('credential', '=', row.credential).where('key', '=', row.key).where('response', '=', row.response).executeTakeFirst()).numUpdatedRows) === 1));

  sealed.push(await resealTable(db, secrets, 'user_mfa',
    (trx) => trx.selectFrom('user_mfa').select(['user_id', 'totp_secret']).execute(),
    (row) => [row.totp_secret],
    async (trx, row, [secret]) => Number((await trx.updateTable('user_mfa').set({ totp_secret: secret! })
      .where('user_id', '=', row.user_id).where('totp_secret', '=', row.totp_secret).executeTakeFirst()).numUpdatedRows) === 1));

  sealed.push(await resealTable(db, secrets, 'sso_connections',
    (trx) => trx.selectFrom('sso_connections').select(['org_id', 'client_secret']).execute(),
    (row) => [row.client_secret],
    async (trx, row, [secret]) => Number((await trx.updateTable('sso_connections').set({ client_secret: secret! })
      .where('org_id', '=', row.org_id).where('client_secret', '=', row.client_secret).executeTakeFirst()).numUpdatedRows) === 1));
  // Sign-ins under way: their PKCE verifiers, so a sign-in started just before the rotation finishes after it.
  sealed.push(await resealTable(db, secrets, 'sso_logins',
    (trx) => trx.selectFrom('sso_logins').select(['id', 'code_verifier']).where('used_at', 'is', null).execute(),
    (row) => [row.code_verifier],
    async (trx, row, [verifier]) => Number((await trx.updateTable('sso_logins').set({ code_verifier: verifier! })
      .where('id', '=', row.id).where('code_verifier', '=', row.code_verifier).executeTakeFirst()).numUpdatedRows) === 1));

  const keys = await db.selectFrom('api_keys').select((eb) => eb.fn.countAll<number | string>().as('n')).where('revoked_at', 'is', null).executeTakeFirstOrThrow();
  const tokens = await db.selectFrom('user_tokens').select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('used_at', 'is', null).where('expires_at', '>', now).executeTakeFirstOrThrow();
  const recovery = await db.selectFrom('user_recovery_codes').select((eb) => eb.fn.count<number | string>('user_id').distinct().as('n'))
    .where('used_at', 'is', null).executeTakeFirstOrThrow();
  return { sealed, apiKeys: Number(keys.n), userTokens: Number(tokens.n), recoveryCodeUsers: Number(recovery.n) };
}
