// One priority order for "what to fix first" (issue 26, domain/priority.ts): each issue keeps
// the inputs of its priority, refreshed by the pipeline (pipeline/prioritise-step.ts: the
// weight every cycle, the 7-day users and revenue at most hourly),
// and the result, so every face sorts and pages by it in SQL.
//   users_7d               distinct users with the signal on its element in 7 days
//   signal_weight          the site's resolved weight of the type (null: the registry's)
//   revenue_at_risk_cents  monthly revenue at risk (null: the site tracks no conversions, or
//                          too few sessions for an estimate)
//   priority, priority_reason   0-100 and the words that explain it
//   priority_inputs_at     when users_7d and revenue_at_risk_cents were computed (they read 7
//                          and 30 days, so a cycle refreshes them at most hourly)
//
// Existing rows get a stand-in until the next cycle fills them exactly: users_7d from the
// 24-hour user_count (a lower bound), no revenue part, the fallback weight 10, by the formula
// as written today (users 35 x log10(1 + users) / log10(1001), severity 30 x its share, weight
// 15 x 10 / 40; the sum x 100 / 80). Numeric arithmetic, so round(x, 1) works on PostgreSQL;
// log10 exists on both (SQLite's math functions are built in better-sqlite3).
//
// No index on (site_id, priority): the order first puts issues needing attention ahead (a
// case on status), which an index on priority cannot serve, and a site's issues are few enough
// to sort; an index would only cost every cycle's updates.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('ux_issues').addColumn('users_7d', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('ux_issues').addColumn('signal_weight', 'double precision').execute();
  await db.schema.alterTable('ux_issues').addColumn('revenue_at_risk_cents', 'bigint').execute();
  await db.schema.alterTable('ux_issues').addColumn('priority', 'double precision', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('ux_issues').addColumn('priority_reason', 'text', (c) => c.notNull().defaultTo('')).execute();
  await db.schema.alterTable('ux_issues').addColumn('priority_inputs_at', 'bigint').execute();

  const users = sql`case when user_count >= 1000 then 1.0 else log10(1.0 + user_count) / log10(1001.0) end`;
  const severity = sql`case severity when 'critical' then 1.0 when 'high' then 0.75 when 'medium' then 0.5 else 0.25 end`;
  await sql`update ux_issues set
    users_7d = user_count,
    priority = round((35.0 * ${users} + 30.0 * ${severity} + 3.75) * 1.25, 1),
    priority_reason = severity || '; ' || user_count || case when user_count = 1 then ' user' else ' users' end
      || ' in 24 hours (estimated until the next pipeline cycle)'`.execute(db);
}
