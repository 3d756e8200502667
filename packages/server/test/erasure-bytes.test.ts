// Erasure that erases: after a person is erased, their identifiers are in no byte of the SQLite
// file, its WAL, or a backup taken later (secure_delete on the writing connection, the WAL
// checkpointed and truncated by the erasure, backups written by VACUUM INTO). On PostgreSQL the
// erasure's answer says the rows stay as dead tuples until VACUUM (docs/privacy.md).
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backupSqlite } from '../src/store/backup.ts';
import { openStore } from '../src/store/db.ts';
import { migrateToLatest } from '../src/store/migrate.ts';
import { bearer, eachDialect, useHarness, type Org } from './helpers/harness.ts';
import { cycle } from './helpers/traffic.ts';

const hex = (c: string, n = 32) => c.repeat(n).slice(0, n);
/** How often `needle` occurs in the file's bytes (0 when there is no file). */
function occurrences(path: string, needle: string): number {
  if (!existsSync(path)) return 0;
  const bytes = readFileSync(path);
  const wanted = Buffer.from(needle, 'utf8');
  let n = 0;
  for (let at = bytes.indexOf(wanted); at !== -1; at = bytes.indexOf(wanted, at + 1)) n++;
  return n;
}

eachDialect('erasure on disk', ({ name }) => {
  const h = useHarness(name, { raisedLimits: true });
  let a: Org;
  let admin: string;
  // Planted identifiers, unlike anything else in the store.
  const VID = 'f00dfacef00dfacef00dfacef00dface';
  const USER_REF = 'planted-user-ref-zq9x7w';
  const SIDS = [hex('d4'), hex('d5')];
  const OTHER_VID = hex('e1');
  const OTHER_SID = hex('e2');

  async function visit(sid: string, vid: string, extra: Record<string, unknown>[] = []) {
    const now = h.clock.now();
    const events = [
      { type: 'pageview', ts: now - 60_000, page: '/checkout' },
      ...[1, 2, 3].map((i) => ({ type: 'signal', ts: now - 60_000 + i * 1000, page: '/checkout', signal_type: 'rage_click', element: 'button.pay', label: 'Pay', confidence: 1, hx: 10, hy: 20, vx: 30, vy: 40 })),
      ...extra,
    ];
    const res = await h.app.inject({ method: 'POST', url: '/v1/ingest', payload: { key: a.keys.publishable, sid, vid, url: 'https://shop.example/checkout', ts: now, events } });
    expect(res.statusCode, res.body).toBe(202);
  }

  beforeAll(async () => {
    a = await h.org('Erasure on disk');
    admin = (await h.user(a, 'admin')).jwt;
    await visit(SIDS[0], VID);
    await visit(SIDS[1], VID, [{ type: 'identify', ts: h.clock.now() - 1000, user_ref: USER_REF }]);
    await visit(OTHER_SID, OTHER_VID);
    await cycle(h, a.site_id, h.clock.now());
  });

  // Each dialect's own file layout: declared only where it applies, so nothing is skipped.
  if (name === 'sqlite') it('SQLite: the file, its WAL and a later backup hold no byte of the erased person; others stay', async () => {
    const file = h.storeUrl.slice('sqlite:'.length);
    const planted = [VID, USER_REF, ...SIDS];
    // Written once through the WAL and copied back into the file: both held the person.
    for (const needle of planted) expect(occurrences(file, needle) + occurrences(`${file}-wal`, needle), needle).toBeGreaterThan(0);

    const res = await h.app.inject({ method: 'DELETE', url: `/v1/manage/privacy/subject?site_id=${a.site_id}&user_ref=${USER_REF}`, headers: bearer(admin) });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.erased.sessions).toBe(2);
    expect(res.json().data.storage).toMatchObject({ overwritten: true, wal_truncated: true, note: expect.stringContaining('Backups taken before this erasure') });

    const dir = mkdtempSync(join(tmpdir(), 'mallard-erasure-'));
    try {
      const backup = join(dir, 'after.db');
      await backupSqlite(file, backup);
      for (const needle of planted) {
        expect(occurrences(file, needle), `${needle} in the file`).toBe(0);
        expect(occurrences(`${file}-wal`, needle), `${needle} in the WAL`).toBe(0);
        expect(occurrences(backup, needle), `${needle} in the backup`).toBe(0);
      }
      // Another person's data is still there, in the file and the backup.
      expect(occurrences(file, OTHER_VID) + occurrences(`${file}-wal`, OTHER_VID)).toBeGreaterThan(0);
      expect(occurrences(backup, OTHER_VID)).toBeGreaterThan(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  if (name === 'postgres') it('PostgreSQL: the answer says the rows stay as dead tuples until VACUUM, and what backups hold', async () => {
    const res = await h.app.inject({ method: 'DELETE', url: `/v1/manage/privacy/subject?site_id=${a.site_id}&visitor_id=${VID}`, headers: bearer(admin) });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.erased.sessions).toBe(2);
    const { storage } = res.json().data;
    expect(storage).toMatchObject({ overwritten: false, wal_truncated: null });
    expect(storage.note).toContain('dead tuples until VACUUM');
    expect(storage.note).toContain('Backups taken before this erasure');
  });
});

describe('backups hold no deleted rows', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mallard-free-pages-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('rows deleted without secure_delete (a store written by an older Mallard) are in the file but not in a backup of it', async () => {
    const file = join(dir, 'old.db');
    const store = openStore(`sqlite:${file}`);
    await migrateToLatest(store.db);
    await store.close();
    // As an older Mallard wrote it: a plain connection, secure_delete off, rows inserted then deleted.
    const old = new SQLite(file);
    old.exec('PRAGMA secure_delete = OFF; CREATE TABLE scratch (id INTEGER PRIMARY KEY, v TEXT)');
    const insert = old.prepare('INSERT INTO scratch (v) VALUES (?)');
    for (let i = 0; i < 2000; i++) insert.run(`deleted-before-${i}-padding-padding-padding`);
    old.exec("DELETE FROM scratch WHERE v LIKE 'deleted-before-%'; PRAGMA wal_checkpoint(TRUNCATE);");
    old.close();
    expect(occurrences(file, 'deleted-before-1999')).toBeGreaterThan(0);

    const backup = join(dir, 'old-backup.db');
    await backupSqlite(file, backup);
    expect(occurrences(backup, 'deleted-before-')).toBe(0);
    const copy = new SQLite(backup, { readonly: true });
    const freePages = (copy.prepare('PRAGMA freelist_count').get() as { freelist_count: number }).freelist_count;
    const migrations = (copy.prepare('select count(*) as n from mallard_migrations').get() as { n: number }).n;
    copy.close();
    expect(freePages).toBe(0);
    expect(migrations).toBeGreaterThan(0);
  });
});
