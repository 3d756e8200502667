// IN lists are padded to a power of two, so a query whose list length varies compiles to a few
// SQL texts: the statement caches keep every text they prepare for the life of the process.
import { CompiledQuery, Kysely, SqliteDialect } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSessions } from '../src/features/journeys/journey-sessions.ts';
import { linkedSessionsQuery } from '../src/features/issues/service.ts';
import { sqliteHandleOf } from '../src/store/db.ts';
import { padInList } from '../src/store/in-list.ts';
import type { Database } from '../src/store/tables.ts';
import { createTestStore, type TestStore } from './helpers/harness.ts';

const SITE = '01900000-0000-7000-8000-000000000001';
const sid = (i: number) => i.toString(16).padStart(32, '0');

describe('padInList', () => {
  it('pads to the next power of two with the last value, keeping every value and adding none', () => {
    expect(padInList([])).toEqual([]);
    expect(padInList(['a'])).toEqual(['a']);
    expect(padInList(['a', 'b', 'c'])).toEqual(['a', 'b', 'c', 'c']);
    for (let n = 2; n <= 300; n++) {
      const values = Array.from({ length: n }, (_, i) => i);
      const padded = padInList(values);
      expect(padded.length).toBeGreaterThanOrEqual(n);
      expect(padded.length & (padded.length - 1)).toBe(0);
      expect(padded.length).toBeLessThan(2 * n);
      expect(new Set(padded)).toEqual(new Set(values));
    }
  });
});

describe('queries with id lists of varying length', () => {
  let test: TestStore;
  let logged: Kysely<Database>;
  let texts = new Set<string>();
  beforeAll(async () => {
    test = await createTestStore('sqlite');
    logged = new Kysely<Database>({
      dialect: new SqliteDialect({ database: sqliteHandleOf(test.store.db)! }),
      log: (e) => { if (e.level === 'query') texts.add((e.query as CompiledQuery).sql); },
    });
  });
  afterAll(async () => { await test.drop(); });

  it('the journeys and issue-detail reads compile to one text per power of two, not one per length', async () => {
    texts = new Set();
    for (let n = 1; n <= 300; n++) {
      const sids = Array.from({ length: n }, (_, i) => sid(i));
      await loadSessions(logged, SITE, sids, true);
      await linkedSessionsQuery(logged, SITE, sids).execute();
    }
    // Lengths 1, 2, 4, ..., 512: ten shapes for each of the three queries.
    expect(texts.size).toBeLessThanOrEqual(30);
  });
});
