// A separate process writing to a SQLite store the way a cycle does: read, yield, then write, in
// one transaction. Prints how many transactions failed. Used by store-locking.test.ts.
import { sql } from 'kysely';
import { openStore } from '../../src/store/db.ts';

const [url, count] = [process.argv[2], Number(process.argv[3])];
const store = openStore(url);
let failed = 0;
for (let i = 0; i < count; i++) {
  try {
    await store.db.transaction().execute(async (trx) => {
      const { rows } = await sql<{ n: number }>`select count(*) as n from writes`.execute(trx);
      await new Promise((resolve) => setTimeout(resolve, 1));
      await sql`insert into writes (seen) values (${Number(rows[0].n)})`.execute(trx);
    });
  } catch {
    failed++;
  }
}
await store.close();
process.stdout.write(JSON.stringify({ failed }));
