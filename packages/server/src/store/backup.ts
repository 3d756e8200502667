// Online backups of a SQLite store and restores into a stopped one. The copy is SQLite's
// VACUUM INTO, consistent while the server writes (one read transaction) and compact (only
// live rows: nothing of deleted ones); a restore checks the copy's schema against this build
// and swaps files atomically.
import { existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import SQLite from 'better-sqlite3';
import { MIGRATION_NAMES } from './migrate.ts';

export class BackupError extends Error {
  override name = 'BackupError';
}

/** Connections and statements stay referenced until exit: see store/db.ts on Node 24 and better-sqlite3 12. */
const kept: unknown[] = [];

interface Checked { migrations: string[]; bytes: number }

/** What a store file holds: an intact SQLite database with a Mallard schema this build knows. */
function checkStoreFile(path: string, what: string): Checked {
  let db: SQLite.Database;
  try {
    db = new SQLite(path, { readonly: true, fileMustExist: true });
    kept.push(db);
  } catch (err) {
    throw new BackupError(`${what} ${path} is not a readable SQLite database (${(err as Error).message})`);
  }
  try {
    let migrations: string[];
    try {
      const statement = db.prepare('select name from mallard_migrations order by name');
      kept.push(statement);
      migrations = (statement.all() as { name: string }[]).map((r) => r.name);
    } catch {
      throw new BackupError(`${what} ${path} is not a Mallard store (no migration table)`);
    }
    const unknown = migrations.filter((name) => !MIGRATION_NAMES.includes(name));
    if (unknown.length > 0) {
      throw new BackupError(`${what} ${path} was made by a newer Mallard (migrations ${unknown.join(', ')} are unknown to this one): upgrade first`);
    }
    const check = db.prepare('pragma integrity_check');
    kept.push(check);
    const integrity = (check.get() as { integrity_check: string }).integrity_check;
    if (integrity !== 'ok') throw new BackupError(`${what} ${path} fails SQLite's integrity check: ${integrity}`);
    return { migrations, bytes: statSync(path).size };
  } finally {
    db.close();
  }
}

/** A consistent copy of the store at `source` (it may be in use), written to `target` atomically. */
export async function backupSqlite(source: string, target: string, options: { force?: boolean } = {}): Promise<Checked> {
  const to = resolve(target);
  if (!existsSync(source)) throw new BackupError(`no store at ${source}`);
  if (existsSync(to) && !options.force) throw new BackupError(`${to} exists; choose another file or pass --force`);
  if (!existsSync(dirname(to))) throw new BackupError(`the directory ${dirname(to)} does not exist`);
  const partial = `${to}.partial-${process.pid}`;
  rmSync(partial, { force: true });
  const db = new SQLite(source, { fileMustExist: true });
  kept.push(db);
  try {
    db.exec('PRAGMA busy_timeout = 5000');
    // VACUUM INTO, not the page-by-page backup API: it writes the live rows of one read
    // transaction into a new file, so the copy holds no free pages and no free space in a page,
    // where rows deleted before (an erasure, retention) could have left their bytes.
    db.exec(`VACUUM INTO '${partial.replaceAll("'", "''")}'`);
  } catch (err) {
    rmSync(partial, { force: true });
    throw new BackupError(`backup failed: ${(err as Error).message}`);
  } finally {
    db.close();
  }
  try {
    // One self-contained file: the copy leaves WAL mode (Mallard turns it back on at start).
    const copy = new SQLite(partial);
    kept.push(copy);
    copy.exec('PRAGMA journal_mode = DELETE');
    copy.close();
    const checked = checkStoreFile(partial, 'the copy');
    renameSync(partial, to);
    return checked;
  } finally {
    for (const leftover of [partial, `${partial}-wal`, `${partial}-shm`]) rmSync(leftover, { force: true });
  }
}

/** Puts a backup in place of the store at `target`, which must not be in use. */
export function restoreSqlite(backup: string, target: string, options: { force?: boolean } = {}): Checked & { previous: string | null } {
  const from = resolve(backup);
  const to = resolve(target);
  if (!existsSync(from)) throw new BackupError(`no backup at ${from}`);
  const checked = checkStoreFile(from, 'the backup');
  // SQLite keeps a -wal file while any connection is open (and removes it at the last close).
  if (existsSync(`${to}-wal`) && !options.force) {
    throw new BackupError(`the store ${to} looks in use (${to}-wal exists): stop Mallard first, or pass --force if no process has it open`);
  }
  if (!existsSync(dirname(to))) throw new BackupError(`the directory ${dirname(to)} does not exist`);
  const staged = `${to}.restore-${process.pid}`;
  const source = new SQLite(from, { readonly: true, fileMustExist: true });
  kept.push(source);
  try {
    // A whole, self-contained copy (no -wal beside it), then one rename into place.
    source.exec(`VACUUM INTO '${staged.replaceAll("'", "''")}'`);
  } catch (err) {
    rmSync(staged, { force: true });
    throw new BackupError(`restore failed: ${(err as Error).message}`);
  } finally {
    source.close();
  }
  let previous: string | null = null;
  if (existsSync(to)) {
    previous = `${to}.before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    renameSync(to, previous);
  }
  rmSync(`${to}-wal`, { force: true });
  rmSync(`${to}-shm`, { force: true });
  renameSync(staged, to);
  return { ...checked, previous };
}
