// Spies on the queries a test provokes, to check where reads run and how many there are
// (counts, never times).
import type SQLite from 'better-sqlite3';
import type { Kysely } from 'kysely';
import { vi } from 'vitest';
import { sqliteHandleOf } from '../../src/store/db.ts';
import type { Database } from '../../src/store/tables.ts';

/** better-sqlite3 statements are never left to the garbage collector (see store/db.ts). */
const kept: unknown[] = [];

/**
 * Every select the SQLite store's main connection answers outside a transaction, from now until
 * vi.restoreAllMocks(): the SQL texts, in order.
 */
export function selectsOnMainConnection(db: Kysely<Database>): string[] {
  const probe = sqliteHandleOf(db)!.prepare('select 1');
  kept.push(probe);
  const statement = Object.getPrototypeOf(probe) as SQLite.Statement;
  const seen: string[] = [];
  for (const method of ['all', 'get', 'iterate'] as const) {
    const original = statement[method] as (...args: unknown[]) => unknown;
    vi.spyOn(statement, method).mockImplementation(function (this: SQLite.Statement, ...args: unknown[]) {
      if (/^\s*select/i.test(this.source) && !this.database.inTransaction) seen.push(this.source);
      return original.apply(this, args);
    } as never);
  }
  return seen;
}

/** `db`, counting the selects whose FROM names `table` (directly or through a subquery) in `counter.selects`. */
export function countingSelectsFrom(db: Kysely<Database>, table: string) {
  const counter = { selects: 0 };
  const counted = db.withPlugin({
    transformQuery: ({ node }) => {
      if (node.kind === 'SelectQueryNode' && JSON.stringify(node.from ?? {}).includes(`"name":"${table}"`)) counter.selects++;
      return node;
    },
    transformResult: async ({ result }) => result,
  });
  return { db: counted, counter };
}
