// `mallard privacy export|erase`: a data-subject request handled by the operator, straight in
// the store (no user token: whoever runs the CLI already holds DATABASE_URL and MALLARD_SECRET).
// Each runs the catalog's operation (operations.ts) through the runner, as an owner of the org
// of the site named (features/orgs/operator.ts); the audit log records it as the system.
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Secrets } from '../auth/secrets.ts';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import { runOperation } from '../domain/operation.ts';
import { UUID_PATTERN } from '../domain/tenancy.ts';
import { openStore } from '../store/db.ts';
import { migrateToLatest } from '../store/migrate.ts';
import { operatorContext, orgOfSite } from '../features/orgs/operator.ts';
import { eraseSubjectOp, exportSubjectOp } from '../features/privacy/operations.ts';
import type { SubjectQuery } from '../features/privacy/schemas.ts';

export interface PrivacyOptions { site: string; visitor?: string; userRef?: string }

/** The operations' input from the flags: the site and exactly one of the visitor id and the user_ref. */
function subjectOf(opts: PrivacyOptions, fail: (message: string) => Error): SubjectQuery & { site_id: string } {
  if (!UUID_PATTERN.test(opts.site)) throw fail(`--site must be a site id (a UUID), got "${opts.site}"`);
  if ((opts.visitor === undefined) === (opts.userRef === undefined)) throw fail('give exactly one of --visitor and --user-ref');
  const value = opts.visitor ?? opts.userRef!;
  if (value.length === 0 || value.length > 256) throw fail(`${opts.visitor !== undefined ? '--visitor' : '--user-ref'} must be 1 to 256 characters`);
  return { site_id: opts.site.toLowerCase(), ...(opts.visitor !== undefined ? { visitor_id: opts.visitor } : { user_ref: opts.userRef }) };
}

export async function runPrivacy(
  action: 'export' | 'erase', opts: PrivacyOptions, config: () => Config, clock: Clock, fail: (message: string) => Error,
  out: Writable = process.stdout,
) {
  const subject = subjectOf(opts, fail);
  const { databaseUrl, secret, sqliteSynchronous } = config();
  const store = openStore(databaseUrl, { sqliteSynchronous });
  try {
    await migrateToLatest(store.db);
    const org = await orgOfSite(store.db, subject.site_id);
    if (!org) throw fail(`--site ${opts.site} is not a site`);
    const ctx = operatorContext(store.db, org, clock.now(), { secrets: new Secrets(secret) });
    if (action === 'export') {
      const file = await runOperation(exportSubjectOp, ctx, subject);
      await pipeline(Readable.from(file.chunks), out, { end: false });
      out.write('\n');
    } else {
      out.write(`${JSON.stringify(await runOperation(eraseSubjectOp, ctx, subject))}\n`);
    }
  } finally {
    await store.close();
  }
}
