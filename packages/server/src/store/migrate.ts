// Migrations live in code (no directory scanning), so they ship inside the package
// and run the same way at start and from `mallard migrate`.
import { Migrator, PostgresAdapter, sql, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import * as initial from './migrations/0001-initial.ts';
import * as pipeline from './migrations/0002-pipeline.ts';
import * as issues from './migrations/0003-issues.ts';
import * as alerts from './migrations/0004-alerts.ts';
import * as deliveries from './migrations/0005-deliveries.ts';
import * as operator from './migrations/0006-operator.ts';
import * as readIndexes from './migrations/0007-read-indexes.ts';
import * as elementRollup from './migrations/0008-element-rollup.ts';
import * as deployDetailIndexes from './migrations/0009-deploy-detail-indexes.ts';
import * as rowCounts from './migrations/0010-row-counts.ts';
import * as pageviewIndex from './migrations/0011-pageview-index.ts';
import * as calibratedScores from './migrations/0012-calibrated-scores.ts';
import * as issuePriority from './migrations/0013-issue-priority.ts';
import * as siteRetention from './migrations/0014-site-retention.ts';
import * as webSessions from './migrations/0015-web-sessions.ts';
import * as twoFactor from './migrations/0016-two-factor.ts';
import * as sso from './migrations/0017-sso.ts';
import * as sessionFriction from './migrations/0018-session-friction.ts';
import * as funnels from './migrations/0019-funnels.ts';
import * as clips from './migrations/0020-clips.ts';
import * as oauth from './migrations/0021-oauth.ts';
import * as sessionPath from './migrations/0022-session-path.ts';

const migrations: Record<string, Migration> = {
  '0001-initial': initial,
  '0002-pipeline': pipeline,
  '0003-issues': issues,
  '0004-alerts': alerts,
  '0005-deliveries': deliveries,
  '0006-operator': operator,
  '0007-read-indexes': readIndexes,
  '0008-element-rollup': elementRollup,
  '0009-deploy-detail-indexes': deployDetailIndexes,
  '0010-row-counts': rowCounts,
  '0011-pageview-index': pageviewIndex,
  '0012-calibrated-scores': calibratedScores,
  '0013-issue-priority': issuePriority,
  '0014-site-retention': siteRetention,
  '0015-web-sessions': webSessions,
  '0016-two-factor': twoFactor,
  '0017-sso': sso,
  '0018-session-friction': sessionFriction,
  '0019-funnels': funnels,
  '0020-clips': clips,
  '0021-oauth': oauth,
  '0022-session-path': sessionPath,
};

/** Every migration this build knows, oldest first: a backup made by a newer build names others. */
export const MIGRATION_NAMES = Object.keys(migrations);

/** The migrations up to and including `last`: what a store of an older build holds (migration tests). */
export function migrationsThrough(last: string): Record<string, Migration> {
  return Object.fromEntries(MIGRATION_NAMES.slice(0, MIGRATION_NAMES.indexOf(last) + 1).map((name) => [name, migrations[name]]));
}

const provider: MigrationProvider = { getMigrations: async () => migrations };

/**
 * On PostgreSQL the migration tables live in the current schema, named explicitly: without a
 * schema Kysely looks for them in every schema of the database, so a second Mallard schema in
 * the same database (another deployment, or the test harness's throwaway schemas) was taken
 * for this one and its migration tables were never created.
 */
async function migrationSchema(db: Kysely<any>): Promise<string | undefined> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return undefined;
  const { rows } = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(db);
  return rows[0]?.schema ?? undefined;
}

export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  const schema = await migrationSchema(db);
  const migrator = new Migrator({
    db, provider, migrationTableName: 'mallard_migrations', migrationLockTableName: 'mallard_migrations_lock',
    migrationTableSchema: schema,
  });
  for (let attempt = 1; ; attempt++) {
    const { error, results } = await migrator.migrateToLatest();
    if (!error) return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
    // Kysely's migrator lists the tables of every schema in the database to find its own; another
    // schema dropped during that listing fails it. Nothing was applied (migrations run under a
    // lock, in a transaction), so looking again is safe.
    if (attempt < 5 && droppedElsewhere(error, schema)) continue;
    throw error instanceof Error ? error : new Error(String(error));
  }
}

/**
 * The listing's failures when another schema is dropped under it: the schema gone (3F000, which
 * names it, so our own missing schema is still an error), or one of its tables or columns gone
 * while the listing looked it up by name (42P01, 42703: "column "site_id" of relation
 * "page_scores" does not exist"). Our own tables are not dropped while we migrate them.
 */
function droppedElsewhere(error: unknown, ownSchema: string | undefined): boolean {
  const e = error as { code?: string; message?: string };
  if (ownSchema === undefined) return false;
  if (e?.code === '3F000') return !String(e.message).includes(`"${ownSchema}"`);
  return e?.code === '42P01' || e?.code === '42703';
}
