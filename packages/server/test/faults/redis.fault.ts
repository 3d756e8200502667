// Fault: Redis killed and restarted under traffic (issue 32, item 3). A real `mallard serve`
// on a SQLite file with REDIS_URL at a private redis-server takes ingest and query traffic
// without pause; Redis is killed (SIGKILL) for about 5 s and started again, empty. Held to:
// no 500 and no failed connection on any request, every acknowledged batch's events stored
// exactly once (and no refused batch's), one warning for the outage and one line for the
// return in the process's log, the process still running, and the limits counted in Redis
// again afterwards. The figures go to the test output in one line.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_BACK_MESSAGE, REDIS_DOWN_MESSAGE } from '../../src/store/fallback-rate-limit.ts';
import { TEST_SECRET } from '../helpers/harness.ts';
import { CHROME_WINDOWS_UA, hex32 } from '../helpers/ingest-kit.ts';
import { eventually } from '../helpers/delivery-kit.ts';
import { privateRedisAvailable, startPrivateRedis, type PrivateRedis } from '../helpers/private-redis.ts';

const BIN = resolve(import.meta.dirname, '../../bin/mallard.js');
const OUTAGE_MS = 5_000;
/** Low enough that both the shared and the per-process counters refuse some of the traffic. */
const QUERY_PER_MIN = 30;
const INGEST_PER_MIN = 100;
const EVENTS_PER_BATCH = 3;

interface Booted { org_id: string; site_id: string; keys: { secret: string; publishable: string } }
type Phase = 'before' | 'outage' | 'after';

const freePort = () => new Promise<number>((done) => {
  const server = createServer().listen(0, '127.0.0.1', () => {
    const { port } = server.address() as AddressInfo;
    server.close(() => done(port));
  });
});
/** A number in letters: pages keep it (ingest stores a numeric path segment as `:id`). */
const letters = (n: number) => n.toString(26).split('').map((d) => String.fromCharCode(97 + parseInt(d, 26))).join('');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(!privateRedisAvailable('Redis fault'))('Redis killed and restarted under ingest and query traffic', () => {
  let redis: PrivateRedis;
  let dir: string;
  let server: ChildProcess;
  let output = '';
  let base: string;
  const env = () => ({
    PATH: process.env.PATH ?? '', DATABASE_URL: `sqlite:${join(dir, 'mallard.db')}`, REDIS_URL: redis.url, MALLARD_SECRET: TEST_SECRET,
    HOST: '127.0.0.1', MALLARD_DEMO: '0', LOG_LEVEL: 'info',
    RATE_LIMIT_QUERY_PER_MIN: String(QUERY_PER_MIN), RATE_LIMIT_INGEST_PER_MIN: String(INGEST_PER_MIN),
  });
  const logLines = () => output.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { level: number; msg: string; [field: string]: unknown });

  function bootstrap(name: string): Booted {
    const result = spawnSync(process.execPath, [BIN, 'bootstrap', '--org', name, '--site-name', 'Shop', '--site-url', 'https://shop.example',
      '--email', `${name.toLowerCase()}@example.com`, '--password', 'correct-horse-battery', '--json'], { env: env(), encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`bootstrap ${name} failed: ${result.stderr}`);
    return JSON.parse(result.stdout) as Booted;
  }

  beforeAll(async () => {
    redis = await startPrivateRedis();
    dir = mkdtempSync(join(tmpdir(), 'mallard-redis-fault-'));
  });
  afterAll(async () => {
    if (server && server.exitCode === null && server.signalCode === null) {
      server.kill('SIGTERM');
      await new Promise((done) => server.once('exit', done));
    }
    await redis?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('answers every request, loses and doubles no acknowledged event, warns once, and counts in Redis again after the restart', async () => {
    // One org takes the query traffic (and its refusals); the other ingests and is exported at the end.
    const reader = bootstrap('Reader');
    const writer = bootstrap('Writer');
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    server = spawn(process.execPath, [BIN, 'serve'], { env: { ...env(), PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
    server.stdout!.on('data', (c) => { output += c; });
    server.stderr!.on('data', (c) => { output += c; });
    await eventually(async () => {
      if (server.exitCode !== null) throw new Error(`mallard serve exited with ${server.exitCode}: ${output}`);
      try { return (await fetch(`${base}/readyz`)).ok; } catch { return false; }
    }, 'mallard serve to be ready', 2400);

    let phase: Phase = 'before';
    let running = true;
    const statuses: Record<Phase, Map<number, number>> = { before: new Map(), outage: new Map(), after: new Map() };
    const failures: string[] = [];
    const acknowledged: string[] = []; // pages of every event in a batch answered 202
    const refused: string[] = [];
    const record = (status: number) => statuses[phase].set(status, (statuses[phase].get(status) ?? 0) + 1);

    async function request(url: string, init: RequestInit = {}) {
      try {
        const res = await fetch(`${base}${url}`, { ...init, signal: AbortSignal.timeout(10_000) });
        record(res.status);
        return { status: res.status, body: await res.text() };
      } catch (err) {
        failures.push(`${url}: ${(err as Error).message}`);
        return null;
      }
    }

    const ingestLoop = async () => {
      const sid = hex32();
      for (let n = 0; running; n++) {
        // Each event with its own id, as the SDK sends them (pageviews at one time are otherwise one event).
        const pages = Array.from({ length: EVENTS_PER_BATCH }, (_, i) => `/fault/${letters(n)}/${letters(i)}`);
        const now = Date.now();
        const answer = await request('/v1/ingest', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'user-agent': CHROME_WINDOWS_UA },
          body: JSON.stringify({ key: writer.keys.publishable, sid, ts: now, events: pages.map((page) => ({ id: hex32(), type: 'pageview', ts: now - 1000, page })) }),
        });
        if (answer?.status === 202) {
          expect(JSON.parse(answer.body).data, answer.body).toMatchObject({ accepted: EVENTS_PER_BATCH, rejected: 0, duplicates: 0, dropped: 0 });
          acknowledged.push(...pages);
        } else if (answer) {
          refused.push(...pages);
        }
        await sleep(30);
      }
    };
    const queryLoop = async () => {
      while (running) {
        await request('/v1/query/whoami', { headers: { authorization: `Bearer ${reader.keys.secret}` } });
        await request(`/v1/query/raw?table=events&site_id=${reader.site_id}&limit=10`, { headers: { authorization: `Bearer ${reader.keys.secret}` } });
        await sleep(20);
      }
    };
    const traffic = Promise.all([ingestLoop(), queryLoop(), queryLoop()]);

    const shared = new Redis(redis.url, { maxRetriesPerRequest: 0 });
    shared.on('error', () => {});
    try {
      await sleep(2_000);
      // The limits are counted in Redis before the fault.
      expect(await shared.keys(`mallard:rl:query:org:${reader.org_id}:*`)).not.toHaveLength(0);

      phase = 'outage';
      await redis.kill();
      await sleep(OUTAGE_MS);
      await redis.restart();
      await eventually(() => logLines().some((l) => l.msg === REDIS_BACK_MESSAGE), 'the process to find Redis again', 400);
      phase = 'after';
      await sleep(2_000);
    } finally {
      running = false;
      await traffic;
    }

    try {
      // The restarted Redis is empty: what it holds now was counted there after the return.
      await eventually(async () => (await shared.keys(`mallard:rl:query:org:${reader.org_id}:*`)).length > 0, 'query counts in the restarted Redis');
      expect(await shared.keys(`mallard:rl:ingest:key:*`)).not.toHaveLength(0);
    } finally {
      shared.disconnect();
    }

    expect(failures).toEqual([]);
    for (const p of ['before', 'outage', 'after'] as const) {
      expect([...statuses[p].keys()].filter((s) => s >= 500), `${p}: answers of 500 and up`).toEqual([]);
      expect([...statuses[p].keys()].every((s) => [200, 202, 429].includes(s)), `${p}: ${JSON.stringify([...statuses[p]])}`).toBe(true);
    }
    // The per-process counters refused too while Redis was gone: the limits held.
    expect(statuses.outage.get(429) ?? 0).toBeGreaterThan(0);
    expect(statuses.outage.get(202) ?? 0).toBeGreaterThan(0);

    // Every acknowledged event exactly once, and nothing of a refused batch.
    const csv = await fetch(`${base}/v1/query/export/events.csv?site_id=${writer.site_id}`, { headers: { authorization: `Bearer ${writer.keys.secret}` } });
    expect(csv.status).toBe(200);
    const rows = (await csv.text()).trim().split('\r\n').slice(1).map((line) => line.split(','));
    const stored = rows.map((cells) => cells[4]);
    const counts = new Map<string, number>();
    for (const page of stored) counts.set(page, (counts.get(page) ?? 0) + 1);
    expect(acknowledged.filter((page) => counts.get(page) !== 1), 'acknowledged events not stored exactly once').toEqual([]);
    expect(refused.filter((page) => counts.has(page)), 'refused events stored').toEqual([]);
    expect(stored).toHaveLength(acknowledged.length);

    // One warning for the outage and one line for the return; nothing at error level; still running.
    const lines = logLines();
    expect(lines.filter((l) => l.msg === REDIS_DOWN_MESSAGE && l.level === 40)).toHaveLength(1);
    const back = lines.filter((l) => l.msg === REDIS_BACK_MESSAGE && l.level === 30);
    expect(back).toHaveLength(1);
    expect(lines.filter((l) => l.level >= 50).map((l) => l.msg)).toEqual([]);
    expect(server.exitCode).toBeNull();
    expect(server.signalCode).toBeNull();

    const metrics = await (await fetch(`${base}/metrics`)).text();
    const metric = (name: string) => Number(metrics.split('\n').find((l) => l.startsWith(`${name} `))?.split(' ')[1]);
    expect(metric('mallard_rate_limit_redis_up')).toBe(1);
    expect(metric('mallard_rate_limit_redis_outages_total')).toBe(1);
    expect(metric('mallard_rate_limit_fallback_checks_total')).toBeGreaterThan(0);

    const total = (p: Phase) => [...statuses[p].values()].reduce((a, b) => a + b, 0);
    const of = (status: number) => (['before', 'outage', 'after'] as const).reduce((sum, p) => sum + (statuses[p].get(status) ?? 0), 0);
    console.log(`redis fault: ${total('before') + total('outage') + total('after')} requests (${total('outage')} while Redis was gone), `
      + `${of(429)} refused with 429 (${statuses.outage.get(429) ?? 0} by per-process counters), 0 answered 500, ${failures.length} failed connections; `
      + `fallback lasted ${back[0].downMs} ms and answered ${back[0].fallbackChecks} checks; `
      + `${acknowledged.length / EVENTS_PER_BATCH} batches (${acknowledged.length} events) acknowledged, all stored once, 0 of ${refused.length / EVENTS_PER_BATCH} refused batches stored`);
  });
});
