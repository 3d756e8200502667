// Migrations live in code (no directory scanning), so they ship inside the package
// and run the same way at start and from `mallard migrate`.
import { Migrator, type Kysely, type Migration, type MigrationProvider } from 'kysely';
import * as initial from './migrations/0001-initial.ts';
import * as pipeline from './migrations/0002-pipeline.ts';
import * as issues from './migrations/0003-issues.ts';
import * as alerts from './migrations/0004-alerts.ts';

const migrations: Record<string, Migration> = {
  '0001-initial': initial,
  '0002-pipeline': pipeline,
  '0003-issues': issues,
  '0004-alerts': alerts,
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  const migrator = new Migrator({ db, provider, migrationTableName: 'mallard_migrations', migrationLockTableName: 'mallard_migrations_lock' });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
