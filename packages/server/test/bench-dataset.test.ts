// The read bench's dataset generator (bench/dataset.ts) must be deterministic: the same seed
// gives the same rows, so runs on different days and machines measure the same data. Two
// fresh stores filled with the same seed hold identical rows (counts and a checksum over every
// column); another seed gives other rows. The alerts it writes are ones the alert routes can
// serve (an object breakdown once made GET /v1/query/alerts answer 500 on every bench dataset),
// and the row counts of /query/raw's `total` equal the rows it wrote.
import { createHash } from 'node:crypto';
import { Value } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import { AlertRecord, toAlertRecord } from '../src/domain/records/alert.ts';
import { generateRows, openSink } from '../bench/dataset.ts';
import type { Store } from '../src/store/db.ts';
import { COUNTED_TABLES, rowCount, type CountedTable } from '../src/store/row-counts.ts';
import { createTestStore, eachDialect } from './helpers/harness.ts';

const END = Date.UTC(2026, 10, 20, 12, 0, 0);
const ORG = '00000000-0000-7000-8000-0000000000aa';
const SITES = ['00000000-0000-7000-8000-000000000001', '00000000-0000-7000-8000-000000000002', '00000000-0000-7000-8000-000000000003'];
const TABLES = ['sessions', 'events', 'signals', 'deploys', 'alerts', 'alert_timeline', 'score_history', 'site_score_history'] as const;

async function generate(dialect: 'sqlite' | 'postgres', seed: string) {
  const { store, url, drop } = await createTestStore(dialect);
  try {
    await store.db.insertInto('orgs').values({ id: ORG, name: 'Bench', created_at: 0 }).execute();
    for (const id of SITES) {
      await store.db.insertInto('sites').values({ id, org_id: ORG, name: id.slice(-1), url: 'https://shop.example', allowed_origins: '[]', created_at: 0, updated_at: 0, deleted_at: null }).execute();
    }
    const sink = openSink(url);
    const ids = await generateRows(sink, SITES, 2_000, seed, END, 3);
    await sink.close();
    // The row counts of /query/raw's tables (store/row-counts.ts) match the rows the sink wrote.
    for (const table of COUNTED_TABLES) {
      for (const site of SITES) {
        const { n } = await store.db.selectFrom(table as CountedTable).select((eb) => eb.fn.countAll().as('n')).where('site_id', '=', site).executeTakeFirstOrThrow();
        expect(await rowCount(store.db, site, table as CountedTable), `${table} of ${site}`).toBe(Number(n));
      }
    }
    const alerts = await store.db.selectFrom('alerts').selectAll().execute();
    return { ids, alerts, ...(await fingerprint(store)) };
  } finally {
    await drop();
  }
}

/** Row counts per table and a SHA-256 over every column of every row, in id order. */
async function fingerprint(store: Store) {
  const counts: Record<string, number> = {};
  const hash = createHash('sha256');
  for (const table of TABLES) {
    const rows = await store.db.selectFrom(table).selectAll().orderBy('id').execute();
    counts[table] = rows.length;
    for (const row of rows) hash.update(JSON.stringify(row));
  }
  return { counts, checksum: hash.digest('hex') };
}

eachDialect('bench dataset generator', (dialect) => {
  describe('the same seed', () => {
    it('writes identical rows twice, and another seed writes other rows', async () => {
      const first = await generate(dialect.name, 'alpha');
      const second = await generate(dialect.name, 'alpha');
      expect(first.counts.signals).toBe(2_000);
      for (const table of TABLES) expect(first.counts[table], table).toBeGreaterThan(0);
      expect(second.counts).toEqual(first.counts);
      expect(second.checksum).toBe(first.checksum);
      expect(second.ids).toEqual(first.ids);
      // The field the serializer refused; the rest of the record is the pipeline's own shape.
      for (const alert of first.alerts) expect(Value.Check(AlertRecord.properties.breakdown, toAlertRecord(alert).breakdown), alert.breakdown).toBe(true);

      const other = await generate(dialect.name, 'beta');
      expect(other.checksum).not.toBe(first.checksum);
    }, 120_000);
  });
});
