// One reader of the SQLite read pool (store/read-pool.ts), on its own thread with its own
// read-only connection to the database file: WAL lets it read while the main connection writes.
// Plain CommonJS so it loads the same under tsx, vitest and compiled JavaScript.
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const SQLite = require('better-sqlite3');

const db = new SQLite(workerData.file, { readonly: true, fileMustExist: true });
// exec, not pragma(), and every statement kept: nothing of better-sqlite3 is left to the garbage
// collector, which aborts the process on Node 24 (see store/db.ts).
db.exec('PRAGMA busy_timeout = 5000');
// No mmap: a mapped file's pages count in the process's RSS (up to the map's size per reader,
// 256 MB before), while reading them through SQLite's small page cache and the OS's was as
// fast in the read and stall benches (BENCHMARKS.md, "reads"), and a map covers only the start
// of a large file anyway.
const statements = new Map();

parentPort.on('message', ({ id, sql, parameters }) => {
  try {
    let stmt = statements.get(sql);
    if (!stmt) {
      stmt = db.prepare(sql);
      // Kysely compiles the same few hundred shapes again and again; keep them prepared.
      statements.set(sql, stmt);
    }
    if (stmt.reader) {
      parentPort.postMessage({ id, rows: stmt.all(parameters) });
    } else {
      const { changes } = stmt.run(parameters);
      parentPort.postMessage({ id, rows: [], changes });
    }
  } catch (err) {
    parentPort.postMessage({ id, error: { message: err.message, code: err.code } });
  }
});
