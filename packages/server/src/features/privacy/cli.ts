// `mallard privacy export|erase`: a data-subject request handled by the operator, straight in
// the store (no user token: whoever runs the CLI already holds DATABASE_URL and MALLARD_SECRET).
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { v7 as uuidv7 } from 'uuid';
import { Secrets } from '../../auth/secrets.ts';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import { UUID_PATTERN } from '../../domain/tenancy.ts';
import { openStore } from '../../store/db.ts';
import { migrateToLatest } from '../../store/migrate.ts';
import { eraseSessions, exportChunksFor, scrubStorage, type Subject } from './service.ts';

export interface PrivacyOptions { site: string; visitor?: string; userRef?: string }

function subjectOf(opts: PrivacyOptions, fail: (message: string) => Error): Subject {
  if (!UUID_PATTERN.test(opts.site)) throw fail(`--site must be a site id (a UUID), got "${opts.site}"`);
  if ((opts.visitor === undefined) === (opts.userRef === undefined)) throw fail('give exactly one of --visitor and --user-ref');
  const value = opts.visitor ?? opts.userRef!;
  if (value.length === 0 || value.length > 256) throw fail(`${opts.visitor !== undefined ? '--visitor' : '--user-ref'} must be 1 to 256 characters`);
  return { siteId: opts.site.toLowerCase(), visitorId: opts.visitor, userRef: opts.userRef };
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
    const site = await store.db.selectFrom('sites').select(['id', 'org_id']).where('id', '=', subject.siteId).where('deleted_at', 'is', null).executeTakeFirst();
    if (!site) throw fail(`--site ${opts.site} is not a site`);
    const now = clock.now();
    const secrets = new Secrets(secret);
    const audit = async (action: string, details: Record<string, unknown>) => {
      await store.db.insertInto('audit_log').values({
        id: uuidv7(), org_id: site.org_id, site_id: site.id, actor_type: 'system', actor_id: null, action,
        target_type: 'privacy_subject', target_id: null, created_at: now,
        details: JSON.stringify({ by: subject.visitorId !== undefined ? 'visitor_id' : 'user_ref', subject_hash: secrets.hmac('privacy-subject', subject.visitorId ?? subject.userRef!).slice(0, 16), via: 'cli', ...details }),
      }).execute();
    };
    if (action === 'export') {
      const { sids, chunks } = await exportChunksFor(store.db, subject, now);
      await audit('privacy.exported', { sessions: sids.length });
      await pipeline(Readable.from(chunks), out, { end: false });
      out.write('\n');
    } else {
      const erased = await eraseSessions(store.db, subject);
      await audit('privacy.erased', erased);
      out.write(`${JSON.stringify({ erased, storage: await scrubStorage(store.db) })}\n`);
    }
  } finally {
    await store.close();
  }
}
