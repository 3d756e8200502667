// Saved funnels (issue 29, item 3): a site's named, ordered steps and the window in which they
// must happen, kept for GET /v1/query/funnel to run again. `steps` is a JSON array of 2 to 10
// strings (page patterns or event names), checked by features/funnels/steps.ts when written.
// The answer itself is never stored: it is computed from events and signals at each read.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createTable('funnels')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('site_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('steps', 'text', (c) => c.notNull())
    .addColumn('window_minutes', 'integer', (c) => c.notNull())
    .addColumn('created_by', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull()).execute();
  await db.schema.createIndex('funnels_site').on('funnels').columns(['site_id', 'created_at']).execute();
}
