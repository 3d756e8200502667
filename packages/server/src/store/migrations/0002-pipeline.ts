// The scoring pipeline's own tables: site-level score history (the site's overall score,
// its raw value and trend per cycle) and per-site claims, so two processes never run the
// same site's cycle at once.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createTable('site_score_history')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull())
    .addColumn('cycle_at', 'bigint', (c) => c.notNull())
    .addColumn('overall_score', 'double precision', (c) => c.notNull())
    .addColumn('raw_score', 'double precision', (c) => c.notNull())
    .addColumn('deviation', 'double precision')
    .addColumn('trend', 'text', (c) => c.notNull())
    .addColumn('active_users', 'integer', (c) => c.notNull())
    .addColumn('affected_users', 'integer', (c) => c.notNull())
    .addColumn('window_start', 'bigint', (c) => c.notNull())
    .addUniqueConstraint('site_score_history_cycle', ['site_id', 'cycle_at'])
    .execute();

  await db.schema.createTable('pipeline_claims')
    .addColumn('site_id', 'text', (c) => c.primaryKey())
    .addColumn('holder', 'text', (c) => c.notNull())
    .addColumn('cycle_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
}
