// Crash safety: the real server under sustained ingest is killed with SIGKILL at a random
// moment and started again on the same store. Every batch that got a 202 must be stored, whole
// and once; a batch without an answer must be stored whole or not at all; and the SDK's retry
// of those (plus re-sends of acknowledged ones) must add nothing twice. Three kill/restart
// cycles per dialect. The kill moments come from a seeded random generator whose seed is
// logged: CRASH_SEED=<seed> replays a run's moments.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Secrets } from '../src/auth/secrets.ts';
import { bootstrapOrg } from '../src/features/orgs/bootstrap.ts';
import { openStore } from '../src/store/db.ts';
import { migrateToLatest } from '../src/store/migrate.ts';
import { createTestStore, eachDialect, type TestStore } from './helpers/harness.ts';
import type { DialectName } from './helpers/services.ts';

const BIN = resolve(import.meta.dirname, '../bin/mallard.js');
const SECRET = 'crash-test-secret-crash-test-secret-0001';
const CYCLES = 3;
const CLIENTS = 6;
const EVENTS_PER_BATCH = 20;
/** The kill lands this long after ingest begins: long enough for many batches, short for the run. */
const KILL_AFTER_MS = { min: 300, max: 1500 };
/** Acknowledged batches sent again after each restart, as a client that never saw its 202 would. */
const RESENT_ACKNOWLEDGED = 10;

/** mulberry32: a small seeded generator, so a failing run's kill moments can be replayed. */
function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');

const freePort = () => new Promise<number>((done) => {
  const server = createServer().listen(0, '127.0.0.1', () => {
    const { port } = server.address() as { port: number };
    server.close(() => done(port));
  });
});

/** One SDK batch: a session's events with ids, so a retry of it is recognised. */
interface Batch { sid: string; ids: string[]; events: object[] }

function makeBatch(cycle: number, client: number, n: number): Batch {
  const sid = `${hex(cycle, 4)}${hex(client, 4)}${'c'.repeat(24)}`;
  const events = Array.from({ length: EVENTS_PER_BATCH }, (_, i) => {
    const id = `${hex(cycle, 4)}${hex(client, 4)}${hex(n, 12)}${hex(i, 12)}`;
    // ts is rewritten at each send (the SDK stamps its own clock on every try).
    if (i % 4 === 0) return { id, type: 'pageview', ts: 0, page: `/p/${n % 7}` };
    if (i % 4 === 3) return { id, type: 'track', ts: 0, page: '/checkout', name: 'add_to_cart' };
    return { id, type: 'signal', ts: 0, page: '/checkout', signal_type: i % 2 ? 'rage_click' : 'dead_click', element: 'button.pay', label: 'Pay', confidence: 0.9 };
  });
  return { sid, ids: events.map((e) => e.id), events };
}

/** POSTs a batch as the SDK does (text/plain, the batch stamped with the sending time). */
async function send(base: string, key: string, batch: Batch): Promise<{ status: number; body: { data?: { accepted: number; duplicates: number } } }> {
  const now = Date.now();
  const events = batch.events.map((e, i) => ({ ...e, ts: now - (EVENTS_PER_BATCH - i) * 100 }));
  const res = await fetch(`${base}/v1/ingest`, {
    method: 'POST', headers: { 'content-type': 'text/plain;charset=UTF-8' },
    body: JSON.stringify({ key, sid: batch.sid, url: 'https://shop.example/checkout', ts: now, events }),
  });
  return { status: res.status, body: await res.json() as { data?: { accepted: number; duplicates: number } } };
}

interface Served { child: ChildProcess; base: string; output: () => string }

async function serve(databaseUrl: string): Promise<Served> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [BIN, 'serve', '--no-worker'], {
    env: {
      PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl, MALLARD_SECRET: SECRET, PORT: String(port), HOST: '127.0.0.1',
      MALLARD_DEMO: '0', LOG_LEVEL: 'warn', RATE_LIMIT_INGEST_PER_MIN: '100000000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (c) => { out += c; });
  child.stderr!.on('data', (c) => { out += c; });
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`the server exited with ${child.exitCode}: ${out}`);
    try { if ((await fetch(`${base}/readyz`)).ok) return { child, base, output: () => out }; } catch { /* starting */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`the server never became ready: ${out}`);
}

const exited = (child: ChildProcess) => new Promise<void>((done) => {
  if (child.exitCode !== null || child.signalCode !== null) done(); else child.once('exit', () => done());
});

/** What the store holds, per session: event ids (with how often each is stored), signals per event, and the session row's counters. */
async function readStore(databaseUrl: string, siteId: string) {
  const store = openStore(databaseUrl, { sqliteReaders: 0, poolSize: 2 });
  try {
    const events = await store.db.selectFrom('events').select(['sid', 'dedupe_key', 'type', 'id']).where('site_id', '=', siteId).execute();
    const signals = await store.db.selectFrom('signals').select(['event_id']).where('site_id', '=', siteId).execute();
    const sessions = await store.db.selectFrom('sessions').select(['sid', 'event_count', 'signal_count']).where('site_id', '=', siteId).execute();
    const stored = new Map<string, number>();
    for (const e of events) stored.set(`${e.sid}/${e.dedupe_key}`, (stored.get(`${e.sid}/${e.dedupe_key}`) ?? 0) + 1);
    const signalsPerEvent = new Map<string, number>();
    for (const s of signals) signalsPerEvent.set(s.event_id, (signalsPerEvent.get(s.event_id) ?? 0) + 1);
    // Every signal event has exactly one signal row, every other event none.
    const signalMismatches = events.filter((e) => (signalsPerEvent.get(e.id) ?? 0) !== (e.type === 'signal' ? 1 : 0)).length;
    const eventIds = new Set(events.map((e) => e.id));
    const orphanSignals = signals.filter((s) => !eventIds.has(s.event_id)).length;
    // Each session row's counters were updated in the same transactions as its events.
    const perSid = new Map<string, { events: number; signals: number }>();
    for (const e of events) {
      const c = perSid.get(e.sid) ?? { events: 0, signals: 0 };
      c.events++;
      if (e.type === 'signal') c.signals++;
      perSid.set(e.sid, c);
    }
    const counterMismatches = sessions
      .filter((s) => s.event_count !== (perSid.get(s.sid)?.events ?? 0) || s.signal_count !== (perSid.get(s.sid)?.signals ?? 0))
      .map((s) => ({ sid: s.sid, row: [s.event_count, s.signal_count], counted: perSid.get(s.sid) }));
    const [{ n: totalRows }] = (await sql<{ n: number }>`select count(*) as n from events where site_id = ${siteId}`.execute(store.db)).rows;
    return { stored, total: Number(totalRows), signalMismatches, orphanSignals, counterMismatches };
  } finally {
    await store.close();
  }
}

type Stored = Awaited<ReturnType<typeof readStore>>;
const copiesOf = (stored: Stored, batch: Batch) => batch.ids.map((id) => stored.stored.get(`${batch.sid}/id:${id}`) ?? 0);

eachDialect('crash safety: SIGKILL during ingest', ({ name }) => {
  let url = '';
  let cleanup: () => Promise<void> = async () => {};
  let siteId = '';
  let key = '';

  beforeAll(async () => {
    const fresh = await freshStore(name);
    url = fresh.url;
    cleanup = fresh.drop;
    const store = openStore(url, { sqliteReaders: 0, poolSize: 2 });
    try {
      await migrateToLatest(store.db);
      const org = await bootstrapOrg(store, new Secrets(SECRET), {
        org: 'Crash', siteName: 'Shop', siteUrl: 'https://shop.example', email: `crash-${name}@example.com`, password: 'correct-horse-battery',
      }, Date.now());
      siteId = org.site_id;
      key = org.keys.publishable;
    } finally {
      await store.close();
    }
  });
  afterAll(async () => { await cleanup(); });

  it(`every acknowledged batch is stored whole and once across ${CYCLES} kills, and retries add nothing twice`, async () => {
    const seed = process.env.CRASH_SEED ? Number(process.env.CRASH_SEED) : Math.floor(Math.random() * 2 ** 31);
    const random = seededRandom(seed);
    console.log(`crash-safety on ${name}: seed ${seed} (CRASH_SEED=${seed} replays the kill moments)`);

    const acknowledged: Batch[] = [];
    const unanswered: Batch[] = [];
    let server = await serve(url);
    try {
      for (let cycle = 0; cycle < CYCLES; cycle++) {
        // Sustained ingest: each client sends its session's batches one after another, as the SDK does.
        let killed = false;
        const cycleAcknowledged: Batch[] = [];
        const cycleUnanswered: Batch[] = [];
        // The kill's moment counts from the cycle's first acknowledged batch, so it always lands
        // during sustained ingest, however slow a loaded machine is to answer the first one.
        let firstAck!: () => void;
        const ingesting = new Promise<void>((resolve) => { firstAck = resolve; });
        const client = async (c: number) => {
          for (let n = 0; !killed; n++) {
            const batch = makeBatch(cycle, c, n);
            let status = 0;
            try { status = (await send(server.base, key, batch)).status; } catch { /* the server is gone */ }
            if (status === 202) {
              cycleAcknowledged.push(batch);
              firstAck();
            }
            else if (status === 0) cycleUnanswered.push(batch);
            else throw new Error(`ingest answered ${status} before the kill`);
          }
        };
        const clients = Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c)));
        const killAfter = Math.round(KILL_AFTER_MS.min + random() * (KILL_AFTER_MS.max - KILL_AFTER_MS.min));
        await ingesting;
        await new Promise((r) => setTimeout(r, killAfter));
        server.child.kill('SIGKILL');
        killed = true;
        await exited(server.child);
        await clients;
        expect(server.child.signalCode).toBe('SIGKILL');
        // The kill landed during ingest. (Batches in flight at it are usual but not certain: every
        // client's answer may already be on its way back.)
        expect(cycleAcknowledged.length).toBeGreaterThan(0);
        acknowledged.push(...cycleAcknowledged);
        unanswered.push(...cycleUnanswered);

        // Started again on the same store: what it holds before any retry.
        server = await serve(url);
        const afterCrash = await readStore(url, siteId);
        const committedUnanswered = cycleUnanswered.filter((b) => copiesOf(afterCrash, b).every((n) => n === 1)).length;
        console.log(`crash-safety on ${name}, cycle ${cycle + 1}: killed after ${killAfter} ms; ${cycleAcknowledged.length} batches acknowledged, `
          + `${cycleUnanswered.length} unanswered (${committedUnanswered} of them committed before the kill)`);
        const lostOrDoubled = acknowledged.filter((b) => copiesOf(afterCrash, b).some((n) => n !== 1)).map((b) => `${b.sid}/${b.ids[0]}`);
        expect(lostOrDoubled, `acknowledged batches not stored exactly once after kill ${cycle + 1}`).toEqual([]);
        const wholeOrNone = (copies: number[]) => copies.every((n) => n === 0) || copies.every((n) => n === 1);
        const halfWritten = cycleUnanswered.filter((b) => !wholeOrNone(copiesOf(afterCrash, b)));
        expect(halfWritten.map((b) => `${b.sid}/${b.ids[0]}`), `unanswered batches stored in part after kill ${cycle + 1}`).toEqual([]);
        expect(afterCrash.signalMismatches).toBe(0);
        expect(afterCrash.orphanSignals).toBe(0);
        expect(afterCrash.counterMismatches).toEqual([]);

        // The SDK's retry: every unanswered batch again, which is acknowledged now and stores
        // only what the killed server had not committed; and some acknowledged batches again
        // (a 202 lost on its way back looks the same to a client), which store nothing.
        for (const batch of cycleUnanswered) {
          const answer = await send(server.base, key, batch);
          expect(answer.status, JSON.stringify(answer.body)).toBe(202);
          expect(answer.body.data).toMatchObject({ accepted: EVENTS_PER_BATCH, duplicates: copiesOf(afterCrash, batch)[0] * EVENTS_PER_BATCH });
        }
        for (const batch of cycleAcknowledged.slice(-RESENT_ACKNOWLEDGED)) {
          const answer = await send(server.base, key, batch);
          expect(answer.status, JSON.stringify(answer.body)).toBe(202);
          expect(answer.body.data).toMatchObject({ accepted: EVENTS_PER_BATCH, duplicates: EVENTS_PER_BATCH });
        }
      }

      // Everything ever sent is stored exactly once, and nothing else is.
      const final = await readStore(url, siteId);
      const sent = [...acknowledged, ...unanswered];
      const notOnce = sent.filter((b) => copiesOf(final, b).some((n) => n !== 1)).map((b) => `${b.sid}/${b.ids[0]}`);
      expect(notOnce).toEqual([]);
      expect(final.total).toBe(sent.length * EVENTS_PER_BATCH);
      expect(final.signalMismatches).toBe(0);
      expect(final.orphanSignals).toBe(0);
      expect(final.counterMismatches).toEqual([]);
    } finally {
      if (server.child.exitCode === null && server.child.signalCode === null) {
        server.child.kill('SIGTERM');
        await exited(server.child);
      }
    }
  }, 180_000);
});

/**
 * A store no other test uses. On SQLite a file of its own with no connection left open here:
 * the restarted server must recover the killed one's WAL by itself. On PostgreSQL a fresh
 * schema (createTestStore).
 */
async function freshStore(dialect: DialectName): Promise<{ url: string; drop(): Promise<void> }> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'mallard-crash-'));
    return { url: `sqlite:${join(dir, 'crash.db')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const test: TestStore = await createTestStore(dialect);
  return { url: test.url, drop: test.drop };
}
