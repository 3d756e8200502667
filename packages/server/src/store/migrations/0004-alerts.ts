// The alert engine's own state: the last value each rule saw per page (crossing triggers
// need the value before) and cooldown claims, taken atomically so two workers evaluating at
// once fire one alert, never two. Page '' stands for site-level triggers.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createTable('alert_rule_state')
    .addColumn('rule_id', 'text', (c) => c.notNull())
    .addColumn('page', 'text', (c) => c.notNull())
    .addColumn('last_value', 'double precision', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('alert_rule_state_pk', ['rule_id', 'page'])
    .execute();
  await db.schema.createTable('alert_cooldowns')
    .addColumn('rule_id', 'text', (c) => c.notNull())
    .addColumn('page', 'text', (c) => c.notNull())
    .addColumn('until', 'bigint', (c) => c.notNull())
    .addColumn('alert_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('alert_cooldowns_pk', ['rule_id', 'page'])
    .execute();
}
