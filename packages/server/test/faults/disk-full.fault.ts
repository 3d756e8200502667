// A full disk under the store: a real `mallard serve` whose data lives on a small tmpfs (the
// SQLite file; for PostgreSQL, a private cluster's tablespace holding the database), with ingest
// and read traffic running, while a filler file takes the last byte and is removed a few seconds
// later. Writes are answered 503 storage_full with Retry-After (never a 500), reads keep working,
// the cause is logged once with where the store lives and counted, nothing refused is stored,
// and writes resume by themselves when the space returns.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  acknowledgedExactlyOnce, bootstrap, canRun, eventually, fillDisk, metric, mountSmallDisk, postgresBinariesMissing, serve, sleep,
  startPrivatePostgres, Traffic, type Mallard, type PrivatePostgres,
} from './kit.ts';

const DISK_MB = 48;
const probe = mountSmallDisk(1);
const cannotMount = typeof probe === 'string' ? probe : (probe.unmount(), null);

describe.skipIf(!canRun('full disk fault tests', cannotMount ?? postgresBinariesMissing()))('a full disk under the store', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it.each([
    ['sqlite', 'SQLITE_FULL'],
    ['postgres', '53100'],
  ])('%s: answers 503 storage_full, logs the cause once, and resumes when space returns', async (dialect, code) => {
    const disk = mountSmallDisk(DISK_MB);
    if (typeof disk === 'string') throw new Error(disk);
    cleanups.push(() => disk.unmount());
    let databaseUrl: string;
    let location: string;
    if (dialect === 'sqlite') {
      location = join(disk.dir, 'mallard.db');
      databaseUrl = `sqlite:${location}`;
    } else {
      const cluster: PrivatePostgres = await startPrivatePostgres();
      cleanups.push(() => cluster.destroy());
      databaseUrl = await cluster.databaseOn(disk.dir);
      location = databaseUrl.replace(/^postgres:\/\/[^@]*@/, '');
    }
    const credentials = bootstrap(databaseUrl);
    const mallard: Mallard = await serve({ DATABASE_URL: databaseUrl });
    cleanups.push(() => mallard.stop());

    const traffic = new Traffic(mallard.base, credentials, { concurrency: 4, eventsPerBatch: 20 }).start();
    await sleep(1000);
    const filler = fillDisk(disk.dir);
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
    expect(full[0]).toMatchObject({ level: 40, fault: 'storage_full', store: location, cause: { code } });
    expect(logs.filter((l) => l.level >= 50), mallard.output().slice(-4000)).toEqual([]);
    expect(await metric(mallard.base, 'mallard_store_faults_total', 'fault="storage_full"')).toBeGreaterThan(0);
    expect(await metric(mallard.base, 'mallard_store_fault_active', 'fault="storage_full"')).toBe(0);

    console.log(`${dialect} on a full ${DISK_MB} MB tmpfs: ingest ${traffic.ingest.summary()}; reads ${traffic.reads.summary()}; acknowledged events ${landed.acknowledged}, lost ${landed.lost}, duplicated ${landed.duplicated}, refused but stored ${landed.refusedButStored}`);
  });
});
