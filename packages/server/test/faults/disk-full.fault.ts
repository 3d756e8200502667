// A full disk under a SQLite store: a real `mallard serve` whose database file lives on a small
// tmpfs, with ingest and read traffic running, while a filler file takes the last byte and is
// removed a few seconds later. Writes are answered 503 storage_full with Retry-After (never a
// 500), reads keep working, the cause is logged once with the file's path and counted, nothing
// refused is half-stored, and writes resume by themselves when the space returns.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acknowledgedExactlyOnce, bootstrap, canRun, eventually, fillDisk, metric, mountSmallDisk, serve, sleep, Traffic, type Credentials, type Mallard } from './kit.ts';

const disk = mountSmallDisk(48);

describe.skipIf(!canRun('full disk fault test', typeof disk === 'string' ? disk : null))('a full disk under SQLite', () => {
  const { dir, unmount } = disk as Exclude<typeof disk, string>;
  const file = join(dir, 'mallard.db');
  let mallard: Mallard;
  let credentials: Credentials;

  beforeAll(async () => {
    credentials = bootstrap(`sqlite:${file}`);
    mallard = await serve({ DATABASE_URL: `sqlite:${file}` });
  });
  afterAll(async () => {
    await mallard?.stop();
    unmount();
  });

  it('answers 503 storage_full, logs the cause once, and resumes when space returns', async () => {
    const traffic = new Traffic(mallard.base, credentials, { concurrency: 4, eventsPerBatch: 20 }).start();
    await sleep(1000);
    const filler = fillDisk(dir);
    await eventually(() => (traffic.ingest.byStatus.get('503 storage_full') ?? 0) >= 20, 'writes to be refused as storage_full');
    const readsWhileFull = traffic.reads.byStatus.get('200') ?? 0;
    await sleep(1500);
    expect(traffic.reads.byStatus.get('200') ?? 0, 'reads answered while the disk is full').toBeGreaterThan(readsWhileFull);
    expect(await metric(mallard.base, 'mallard_store_fault_active', 'fault="storage_full"')).toBe(1);

    rmSync(filler);
    const acknowledgedBefore = traffic.acknowledged.length;
    await eventually(() => traffic.acknowledged.length > acknowledgedBefore + 100, 'ingest to be acknowledged again');
    await traffic.stop();

    expect(mallard.alive(), mallard.output()).toBe(true);
    expect(traffic.ingest.broken(), traffic.ingest.summary()).toEqual([]);
    expect(traffic.reads.broken(), traffic.reads.summary()).toEqual([]);
    const landed = await acknowledgedExactlyOnce(mallard.base, credentials, traffic);
    expect(landed).toMatchObject({ lost: 0, duplicated: 0, refusedButStored: 0 });

    await eventually(() => mallard.logs().some((l) => l.msg.startsWith('store writable again')), 'the end of the episode to be logged');
    const logs = mallard.logs();
    const full = logs.filter((l) => l.msg.startsWith('store out of disk space'));
    expect(full).toHaveLength(1);
    expect(full[0]).toMatchObject({ level: 40, fault: 'storage_full', store: file, cause: { code: 'SQLITE_FULL' } });
    expect(logs.filter((l) => l.level >= 50), mallard.output().slice(-4000)).toEqual([]);
    expect(await metric(mallard.base, 'mallard_store_faults_total', 'fault="storage_full"')).toBeGreaterThan(0);
    expect(await metric(mallard.base, 'mallard_store_fault_active', 'fault="storage_full"')).toBe(0);

    console.log(`SQLite on a full 48 MB tmpfs: ingest ${traffic.ingest.summary()}; reads ${traffic.reads.summary()}; acknowledged events ${landed.acknowledged}, lost ${landed.lost}, duplicated ${landed.duplicated}, refused but stored ${landed.refusedButStored}`);
  });
});
