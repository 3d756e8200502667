// Which tables changed, and when, as this process sees it: the read cache (store/read-cache.ts)
// serves a response only while no table it read has changed since it was computed.
//
// Every statement a store's Kysely instances send goes through a tracking driver. A write names
// the tables it touches, found in its SQL text; they are marked changed once the write has
// committed (at once outside a transaction, at COMMIT inside one), never before, so a read that
// starts after the mark sees the write. A read made inside `recordingReads` adds the tables it
// names to that computation's set. Both lists over-approximate (any known table name in the
// text counts), which can only make the cache forget sooner, never serve a stale answer.
//
// Writes that bypass Kysely (the SQLite ingest path's prepared statements) must call
// `tableChangesOf(db).mark(...)` after their transaction commits.
import { AsyncLocalStorage } from 'node:async_hooks';
import type {
  CompiledQuery, DatabaseConnection, Dialect, Driver, Kysely, QueryResult, TransactionSettings,
} from 'kysely';
import { COUNTED_TABLES } from './row-counts.ts';
import { withDriver, WrappingDriver, type WrappedConnection } from './wrapping-driver.ts';
import type { Database } from './tables.ts';

/** Every table of the schema; the type check below fails when one is added to tables.ts and not here. */
const TABLE_NAMES = [
  'orgs', 'org_settings', 'users', 'memberships', 'user_tokens', 'revoked_tokens', 'web_sessions', 'sites', 'api_keys',
  'sessions', 'events', 'signals', 'element_rollup', 'row_counts', 'page_scores', 'score_history', 'ux_issues',
  'issue_evidence', 'issue_activity', 'issue_verifications', 'alert_rules', 'alerts', 'alert_timeline',
  'deploys', 'annotations', 'webhooks', 'webhook_deliveries', 'integrations', 'sdk_configs', 'audit_log',
  'idempotency_keys', 'outbox', 'site_score_history', 'pipeline_claims', 'pipeline_state',
  'alert_rule_state', 'alert_cooldowns', 'delivery_attempts', 'user_mfa', 'user_recovery_codes',
  'sso_connections', 'sso_logins', 'funnels', 'clips', 'clip_signals', 'oauth_records', 'oauth_grants',
] as const satisfies readonly (keyof Database)[];
type Unlisted = Exclude<keyof Database, (typeof TABLE_NAMES)[number]>;
const everyTableListed: Unlisted extends never ? true : Unlisted = true;
void everyTableListed;

const KNOWN = new Set<string>(TABLE_NAMES);
const WRITE = /\b(insert|update|delete|replace|upsert|create|drop|alter|truncate)\b/i;

interface Statement { tables: string[]; writes: boolean }

/** The tables a statement names and whether it may write; memoised by SQL text (parameters are bound, so texts are few). */
const statements = new Map<string, Statement>();
export function classify(sqlText: string): Statement {
  let found = statements.get(sqlText);
  if (!found) {
    const tables = [...new Set((sqlText.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []).filter((word) => KNOWN.has(word)))];
    found = { tables, writes: WRITE.test(sqlText) };
    if (statements.size >= 10_000) statements.clear();
    statements.set(sqlText, found);
  }
  return found;
}

/** The tables read by the computation running in this async context, when one is recording. */
const recording = new AsyncLocalStorage<Set<string>>();

/** Runs `compute` and returns what it returned with every table its statements named. */
export async function recordingReads<T>(compute: () => Promise<T>): Promise<{ value: T; tables: Set<string> }> {
  const tables = new Set<string>();
  const value = await recording.run(tables, compute);
  return { value, tables };
}

/** A logical clock of committed writes, per table. */
export class TableChanges {
  private clock = 0;
  private readonly lastChange = new Map<string, number>();

  /** The clock now: a computation started at this point saw every write marked before it. */
  now(): number { return this.clock; }

  mark(tables: Iterable<string>): void {
    const at = ++this.clock;
    for (const table of tables) {
      this.lastChange.set(table, at);
      // Their triggers write row_counts (migration 0010), which the statement does not name.
      if (COUNTED_TABLES.has(table)) this.lastChange.set('row_counts', at);
    }
  }

  /** Whether any of these tables changed after clock value `at`. */
  changedSince(tables: Iterable<string>, at: number): boolean {
    for (const table of tables) if ((this.lastChange.get(table) ?? 0) > at) return true;
    return false;
  }
}

class TrackedConnection implements WrappedConnection {
  /** Tables written inside the open transaction, marked when it commits. */
  pending: Set<string> | null = null;

  constructor(readonly inner: DatabaseConnection, private readonly changes: TableChanges) {}

  private observe(query: CompiledQuery): string[] | null {
    const { tables, writes } = classify(query.sql);
    const reads = recording.getStore();
    if (reads) for (const table of tables) reads.add(table);
    return writes && tables.length > 0 ? tables : null;
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const written = this.observe(query);
    try {
      return await this.inner.executeQuery<R>(query);
    } finally {
      // Also after a failed statement: marking too much only makes the cache forget sooner.
      if (written) {
        if (this.pending) for (const table of written) this.pending.add(table);
        else this.changes.mark(written);
      }
    }
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    this.observe(query);
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

class TrackedDriver extends WrappingDriver {
  constructor(inner: Driver, private readonly changes: TableChanges) { super(inner); }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new TrackedConnection(await this.inner.acquireConnection(), this.changes);
  }

  override async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings) {
    await super.beginTransaction(connection, settings);
    (connection as TrackedConnection).pending = new Set();
  }

  override async commitTransaction(connection: DatabaseConnection) {
    const tracked = connection as TrackedConnection;
    try {
      await super.commitTransaction(connection);
    } finally {
      const written = tracked.pending;
      tracked.pending = null;
      if (written?.size) this.changes.mark(written);
    }
  }

  override async rollbackTransaction(connection: DatabaseConnection) {
    (connection as TrackedConnection).pending = null;
    await super.rollbackTransaction(connection);
  }
}

/** The same dialect, with every statement of its driver observed by `changes`. */
export function trackedDialect(inner: Dialect, changes: TableChanges): Dialect {
  return withDriver(inner, (driver) => new TrackedDriver(driver, changes));
}

const changesOf = new WeakMap<Kysely<Database>, TableChanges>();

export function registerTableChanges(db: Kysely<Database>, changes: TableChanges): void {
  changesOf.set(db, changes);
}

/** The change clock of a store's main Kysely instance (absent for one the store did not open). */
export function tableChangesOf(db: Kysely<Database>): TableChanges | undefined {
  return changesOf.get(db);
}
