// Per-site retention (issue 33, item 12): a site may keep its raw data for fewer days than the
// instance's MALLARD_RETENTION_DAYS (never more). Null: the instance's period.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('sites').addColumn('retention_days', 'integer').execute();
}

