// Issue clustering's watermark: how far each site's signals have been added to their issues'
// running counts, so each signal is counted once however often cycles run.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createTable('pipeline_state')
    .addColumn('site_id', 'text', (c) => c.primaryKey())
    .addColumn('issues_counted_until', 'bigint', (c) => c.notNull())
    .execute();
}
