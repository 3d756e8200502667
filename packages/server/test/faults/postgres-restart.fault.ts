// PostgreSQL restarted under load: a real `mallard serve` (API, scheduler, delivery) on a
// private cluster, with ingest and read traffic running, while the cluster is restarted fast
// (every connection ended with 57P01) and then taken down for a few seconds. The process must
// live through it, answer every request (503 unavailable with Retry-After while the database is
// away, never a 500, never a dropped connection), say not ready meanwhile, log the outage once,
// serve again by itself, and every acknowledged event must be stored exactly once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  acknowledgedExactlyOnce, bootstrap, canRun, eventually, metric, postgresBinariesMissing, serve, sleep, startPrivatePostgres, Traffic,
  type Credentials, type Mallard, type PrivatePostgres,
} from './kit.ts';

describe.skipIf(!canRun('PostgreSQL restart fault test', postgresBinariesMissing()))('PostgreSQL restarted and down under load', () => {
  let pg: PrivatePostgres;
  let mallard: Mallard;
  let credentials: Credentials;

  beforeAll(async () => {
    pg = await startPrivatePostgres();
    credentials = bootstrap(pg.url);
    // A short pipeline interval, so the scheduler's cycles also meet the outage.
    mallard = await serve({ DATABASE_URL: pg.url, MALLARD_PIPELINE_INTERVAL_MIN: '1' });
  });
  afterAll(async () => {
    await mallard?.stop();
    await pg?.destroy();
  });

  it('survives, answers 503 meanwhile, recovers by itself, and loses nothing acknowledged', async () => {
    const traffic = new Traffic(mallard.base, credentials, { concurrency: 4 }).start();
    await sleep(1500);

    // Three fast restarts: every pooled connection, idle or checked out by a query, is ended.
    for (let i = 0; i < 3; i++) {
      await pg.restart();
      await sleep(1000);
    }
    // Then down for a while: not ready, and requests answered 503 at once.
    await pg.down();
    await sleep(1000);
    const notReady = await fetch(`${mallard.base}/readyz`);
    expect(notReady.status).toBe(503);
    expect(notReady.headers.get('retry-after')).toBe('5');
    expect((await notReady.json()).error.code).toBe('unavailable');
    await sleep(3000);
    await pg.start();

    // Back by itself: ready again, and ingest acknowledged again.
    await eventually(async () => (await fetch(`${mallard.base}/readyz`)).ok, 'readyz to say ready again');
    const acknowledgedBefore = traffic.acknowledged.length;
    await eventually(() => traffic.acknowledged.length > acknowledgedBefore + 20, 'ingest to be acknowledged again');
    await traffic.stop();

    expect(mallard.alive(), mallard.output()).toBe(true);
    expect(traffic.ingest.broken(), traffic.ingest.summary()).toEqual([]);
    expect(traffic.reads.broken(), traffic.reads.summary()).toEqual([]);
    expect(traffic.ingest.byStatus.get('503 unavailable') ?? 0, traffic.ingest.summary()).toBeGreaterThan(0);

    const landed = await acknowledgedExactlyOnce(mallard.base, credentials, traffic);
    expect(landed).toMatchObject({ lost: 0, duplicated: 0, refusedButStored: 0 });

    // The outage is logged once per episode (warn), never as a request error, never a crash.
    // Its end is logged after a quiet second with a success (the reads above are ones).
    await eventually(async () => {
      await fetch(`${mallard.base}/readyz`);
      const lines = mallard.logs();
      return lines.filter((l) => l.msg.startsWith('store reachable again')).length === lines.filter((l) => l.msg.startsWith('store unreachable')).length;
    }, 'the end of the last outage episode to be logged');
    const logs = mallard.logs();
    const outages = logs.filter((l) => l.msg.startsWith('store unreachable'));
    expect(outages.length).toBeGreaterThan(0);
    expect(outages.length, JSON.stringify(outages.map((l) => l.time))).toBeLessThanOrEqual(4);
    expect(logs.filter((l) => l.level >= 50), mallard.output().slice(-4000)).toEqual([]);
    expect(await metric(mallard.base, 'mallard_store_faults_total', 'fault="unavailable"')).toBeGreaterThan(0);
    expect(await metric(mallard.base, 'mallard_store_fault_active', 'fault="unavailable"')).toBe(0);

    // The scheduler lived through it too: the first cycle due after the outage runs (a cycle a minute).
    const nextCycle = Math.ceil(Date.now() / 60_000) * 60_000;
    await eventually(async () => {
      const res = await fetch(`${mallard.base}/v1/query/scores?site_id=${credentials.site_id}`, { headers: { authorization: `Bearer ${credentials.keys.secret}` } });
      const data = (await res.json()).data as { site: { window_to: string | null } };
      return data.site.window_to !== null && Date.parse(data.site.window_to) >= nextCycle;
    }, 'a pipeline cycle after the outage', 90_000);

    console.log(`postgres restart x3 + 5 s down: ingest ${traffic.ingest.summary()}; reads ${traffic.reads.summary()}; acknowledged events ${landed.acknowledged}, lost ${landed.lost}, duplicated ${landed.duplicated}; outage episodes logged ${outages.length}`);
  });
});
