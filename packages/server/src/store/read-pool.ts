// Reads off the main thread on SQLite. better-sqlite3 is synchronous, so a slow query on the
// main connection stalls every other request, ingest included. The read pool is a few worker
// threads (store/read-worker.cjs), each with its own read-only connection to the same file
// (WAL allows concurrent readers); a Kysely dialect sends each compiled query to a free
// worker and awaits its rows. Writes stay on the main connection. Each statement on a reader
// starts a fresh read snapshot, so a read sees every write committed before it was sent.
import { Worker } from 'node:worker_threads';
import {
  SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler, CompiledQuery,
  type DatabaseConnection, type Dialect, type Driver, type Kysely, type QueryResult,
} from 'kysely';

const WORKER_FILE = new URL('./read-worker.cjs', import.meta.url);

interface Reply { id: number; rows?: unknown[]; changes?: number; error?: { message: string; code?: string } }

/** One worker thread and the queries it has in flight (one at a time: Kysely holds it). */
class Reader implements DatabaseConnection {
  private worker: Worker | null = null;
  private next = 0;
  private waiting = new Map<number, { resolve(r: Reply): void; reject(e: unknown): void }>();
  served = 0;

  constructor(private readonly file: string) {}

  get threadId(): number | null { return this.worker?.threadId ?? null; }

  /** Started on first use, so a process that never reads through the pool spawns nothing. */
  private start(): Worker {
    const worker = new Worker(WORKER_FILE, { workerData: { file: this.file } });
    worker.on('message', (reply: Reply) => {
      const pending = this.waiting.get(reply.id);
      if (!pending) return;
      this.waiting.delete(reply.id);
      if (this.waiting.size === 0) worker.unref();
      pending.resolve(reply);
    });
    worker.on('error', (err) => this.fail(err));
    worker.on('exit', () => { this.worker = null; this.fail(new Error('SQLite reader thread exited')); });
    worker.unref();
    this.worker = worker;
    return worker;
  }

  private fail(err: unknown) {
    for (const pending of this.waiting.values()) pending.reject(err);
    this.waiting.clear();
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const worker = this.worker ?? this.start();
    const id = this.next++;
    const reply = await new Promise<Reply>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      // A query in flight keeps the process alive; an idle reader does not.
      worker.ref();
      worker.postMessage({ id, sql: query.sql, parameters: query.parameters });
    });
    this.served++;
    if (reply.error) throw Object.assign(new Error(reply.error.message), { code: reply.error.code });
    return { rows: reply.rows as R[], ...(reply.changes !== undefined ? { numAffectedRows: BigInt(reply.changes) } : {}) };
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('The SQLite read pool does not stream; read through the main connection');
  }

  async close() {
    const worker = this.worker;
    this.worker = null;
    if (worker) { worker.removeAllListeners('exit'); await worker.terminate(); }
  }
}

/** A fixed set of readers; a query waits for a free one. */
export class ReadPool implements Driver {
  readonly readers: Reader[];
  private free: Reader[];
  private queue: ((r: Reader) => void)[] = [];

  constructor(file: string, size: number) {
    this.readers = Array.from({ length: size }, () => new Reader(file));
    this.free = [...this.readers];
  }

  async init() {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const reader = this.free.pop();
    if (reader) return reader;
    return new Promise((resolve) => this.queue.push(resolve));
  }

  async releaseConnection(connection: DatabaseConnection) {
    const waiter = this.queue.shift();
    if (waiter) waiter(connection as Reader);
    else this.free.push(connection as Reader);
  }

  // A transaction on a reader is one read snapshot across several statements.
  async beginTransaction(connection: DatabaseConnection) { await connection.executeQuery(CompiledQuery.raw('begin')); }
  async commitTransaction(connection: DatabaseConnection) { await connection.executeQuery(CompiledQuery.raw('commit')); }
  async rollbackTransaction(connection: DatabaseConnection) { await connection.executeQuery(CompiledQuery.raw('rollback')); }

  async destroy() { await Promise.all(this.readers.map((r) => r.close())); }

  /** Queries each reader thread has answered, for tests and metrics. */
  stats(): { threadId: number | null; served: number }[] {
    return this.readers.map((r) => ({ threadId: r.threadId, served: r.served }));
  }
}

export class ReadPoolDialect implements Dialect {
  constructor(private readonly pool: ReadPool) {}
  createDriver(): Driver { return this.pool; }
  createQueryCompiler() { return new SqliteQueryCompiler(); }
  createAdapter() { return new SqliteAdapter(); }
  createIntrospector(db: Kysely<any>) { return new SqliteIntrospector(db); }
}
