// `mallard secret rotate`: the operator's half of a MALLARD_SECRET rotation (docs/operations.md,
// "Rotating MALLARD_SECRET"). Prints counts only: never either secret, never a sealed value.
import { Secrets } from '../auth/secrets.ts';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import { openStore } from '../store/db.ts';
import { migrateToLatest } from '../store/migrate.ts';
import { rotateSecrets, type RotationReport } from '../features/secrets/rotate.ts';

export async function runSecretRotate(
  config: () => Config, clock: Clock, fail: (message: string) => Error, print: (line: string) => void = console.log,
): Promise<RotationReport> {
  const { databaseUrl, sqliteSynchronous, secret, previousSecret } = config();
  if (previousSecret === null) {
    throw fail('MALLARD_SECRET_PREVIOUS is not set: set it to the secret being replaced and MALLARD_SECRET to the new one (docs/operations.md, "Rotating MALLARD_SECRET")');
  }
  const store = openStore(databaseUrl, { sqliteSynchronous });
  try {
    await migrateToLatest(store.db);
    const report = await rotateSecrets(store.db, new Secrets(secret, previousSecret), clock.now());
    for (const t of report.sealed) {
      print(`${t.table}: ${t.resealed} re-sealed under MALLARD_SECRET, ${t.current} already under it, ${t.unreadable} unreadable under either secret (left as they are)`);
    }
    print(`api_keys: ${report.apiKeys} active keys not re-hashed (a key's HMAC needs the key, which is never stored): each verifies against both secrets and is re-hashed under MALLARD_SECRET on its next use; one unused until MALLARD_SECRET_PREVIOUS is dropped stops working`);
    print(`user_tokens: ${report.userTokens} open invitation or reset tokens verify against both secrets until they expire (7 days after issue)`);
    print(`user_recovery_codes: ${report.recoveryCodeUsers} users hold unused two-factor recovery codes, HMACs not re-hashed (the codes are never stored): they verify against both secrets; those made before the rotation stop working when MALLARD_SECRET_PREVIOUS is dropped, so those users make new ones first (POST /v1/auth/2fa/recovery-codes)`);
    return report;
  } finally {
    await store.close();
  }
}
