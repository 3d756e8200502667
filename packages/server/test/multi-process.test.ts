// Several processes on one PostgreSQL and one Redis, as a scaled-out deployment runs: real
// `mallard serve --no-worker` and `mallard worker` processes started from bin/mallard.js. Two
// API processes share the query rate limit exactly; two workers started together score a
// cycle once and fire its alert once (one notification queued and sent per channel); two
// workers send each delivery once per attempt; and a worker killed with SIGKILL in the middle
// of a send leaves its claim to the other worker, which sends it once the lease runs out.
// The test process sets the data up through an in-process app on the same schema.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer as createHttpServer, type IncomingMessage } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { Redis } from 'ioredis';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { cycleTimeAt } from '../src/pipeline/cycle.ts';
import { bearer, TEST_SECRET, useHarness, type Org } from './helpers/harness.ts';
import { postgresAvailable, redisAvailable, TEST_REDIS_URL } from './helpers/services.ts';
import { eventually, MailServer, Receiver } from './helpers/delivery-kit.ts';
import { api, ingest, INTERVAL, intervalTraffic } from './helpers/alert-traffic.ts';

const BIN = resolve(import.meta.dirname, '../bin/mallard.js');
/** The shortest delivery lease the config allows: the kill test waits it out. */
const LEASE_SEC = 35;

const freePort = () => new Promise<number>((done) => {
  const server = createNetServer().listen(0, '127.0.0.1', () => {
    const { port } = server.address() as AddressInfo;
    server.close(() => done(port));
  });
});

/** A started `mallard` process, its output, and its JSON log lines (pino's). */
interface Mallard { child: ChildProcess; name: string; base: string; output(): string; logs(): Record<string, unknown>[] }

function exited(child: ChildProcess) {
  return new Promise<void>((done) => {
    if (child.exitCode !== null || child.signalCode !== null) done(); else child.once('exit', () => done());
  });
}

describe.skipIf(!postgresAvailable || !redisAvailable)('several processes on one PostgreSQL and one Redis', () => {
  const h = useHarness('postgres', { wallClock: true, raisedLimits: true });
  const running: Mallard[] = [];
  let receiver: Receiver;
  let mail: MailServer;

  beforeAll(async () => {
    receiver = await new Receiver().start();
    mail = await new MailServer().start();
  });
  afterAll(async () => {
    await receiver.close();
    await mail.close();
  });
  beforeEach(() => {
    receiver.reset();
    h.clock.set(Date.now());
  });
  // Every process a test started is stopped before the next test starts its own.
  afterEach(async () => {
    for (const p of running.splice(0)) {
      if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGTERM');
      await exited(p.child);
    }
  });

  /** Starts `mallard <args>` on the harness's schema with the given environment on top. */
  function start(name: string, args: string[], env: Record<string, string>, port = 0): Mallard {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: {
        PATH: process.env.PATH ?? '', DATABASE_URL: h.storeUrl, MALLARD_SECRET: TEST_SECRET, HOST: '127.0.0.1', PORT: String(port),
        MALLARD_DEMO: '0', LOG_LEVEL: 'debug', MALLARD_ALLOW_PRIVATE_TARGETS: '1', SMTP_URL: mail.url, ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (c) => { out += c; });
    child.stderr!.on('data', (c) => { out += c; });
    const p: Mallard = {
      child, name, base: `http://127.0.0.1:${port}`, output: () => out,
      logs: () => out.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, unknown>),
    };
    running.push(p);
    return p;
  }

  async function serve(name: string, env: Record<string, string>): Promise<Mallard> {
    const p = start(name, ['serve', '--no-worker'], env, await freePort());
    await eventually(async () => {
      if (p.child.exitCode !== null) throw new Error(`${name} exited with ${p.child.exitCode}: ${p.output()}`);
      try { return (await fetch(`${p.base}/readyz`)).ok; } catch { return false; }
    }, `${name} to be ready`, 2400);
    return p;
  }

  async function worker(name: string, env: Record<string, string> = {}): Promise<Mallard> {
    const p = start(name, ['worker'], env);
    await eventually(() => {
      if (p.child.exitCode !== null) throw new Error(`${name} exited with ${p.child.exitCode}: ${p.output()}`);
      return p.output().includes('Mallard worker running');
    }, `${name} to run`, 2400);
    return p;
  }

  /** A worker's log lines of the given message (errors of any message fail the test). */
  function logged(p: Mallard, msg: string) {
    const lines = p.logs();
    const errors = lines.filter((l) => Number(l.level) >= 50);
    expect(errors, `${p.name} logged errors`).toEqual([]);
    return lines.filter((l) => l.msg === msg);
  }

  async function hook(org: Org, path: string, events: string[]) {
    const res = await h.app.inject({ method: 'POST', url: '/v1/manage/webhooks', headers: bearer(org.keys.secret), payload: { url: receiver.url(path), events } });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().data.id as string;
  }

  async function deploy(org: Org, version: string) {
    const res = await h.app.inject({ method: 'POST', url: '/v1/manage/deploys', headers: bearer(org.keys.secret), payload: { version } });
    expect(res.statusCode, res.body).toBe(201);
  }

  const deliveriesOf = (siteId: string) => h.store.db.selectFrom('webhook_deliveries').selectAll().where('site_id', '=', siteId).execute();
  const attemptsOf = (siteId: string) => h.store.db.selectFrom('delivery_attempts').selectAll().where('site_id', '=', siteId).orderBy('attempt').execute();

  it('the query rate limit holds exactly across two API processes sharing Redis', async () => {
    const LIMIT = 10;
    const SENT = 2 * LIMIT + 5;
    const org = await h.org('Limits');
    const redis = new Redis(TEST_REDIS_URL);
    try {
      const env = { REDIS_URL: TEST_REDIS_URL, RATE_LIMIT_QUERY_PER_MIN: String(LIMIT) };
      const apis = await Promise.all([serve('api-1', env), serve('api-2', env)]);
      // The limit is a fixed one-minute window on each process's wall clock: the burst is sent
      // well inside one window, so every request counts against the same one.
      if (Date.now() % 60_000 > 45_000) await new Promise((r) => setTimeout(r, 60_000 - (Date.now() % 60_000) + 200));
      const answers = await Promise.all(Array.from({ length: SENT }, async (_, i) => {
        const res = await fetch(`${apis[i % 2].base}/v1/query/whoami`, { headers: bearer(org.keys.secret) });
        return { via: i % 2, status: res.status, body: await res.json() as { data: unknown; error: { code: string; details: { reset_at: string } } | null } };
      }));
      const ok = answers.filter((a) => a.status === 200);
      const refused = answers.filter((a) => a.status === 429);
      console.log(`multi-process rate limit: ${ok.filter((a) => a.via === 0).length} + ${ok.filter((a) => a.via === 1).length} answered 200 by the two API processes`);
      expect(ok).toHaveLength(LIMIT);
      expect(refused).toHaveLength(SENT - LIMIT);
      for (const r of refused) {
        expect(r.body.data).toBeNull();
        expect(r.body.error).toMatchObject({ code: 'rate_limited', status: 429 });
      }
      // One window: every refusal names the same reset time.
      expect(new Set(refused.map((r) => r.body.error!.details.reset_at)).size).toBe(1);
      // The count both processes kept is the one in Redis.
      const keys = await redis.keys(`mallard:rl:query:org:${org.org_id}:*`);
      expect(keys).toHaveLength(1);
      expect(Number(await redis.get(keys[0]))).toBe(LIMIT);
    } finally {
      const keys = await redis.keys(`mallard:rl:*:org:${org.org_id}:*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
    }
  }, 90_000);

  it('two workers started together score a cycle once and fire its alert once, with one notification per channel; a third run of it adds nothing', async () => {
    // A cycle time far enough from the next one that every worker's first round is this cycle.
    if (cycleTimeAt(Date.now(), INTERVAL) + INTERVAL - Date.now() < 45_000) await new Promise((r) => setTimeout(r, 46_000));
    h.clock.set(Date.now());
    const cycleAt = cycleTimeAt(Date.now(), INTERVAL);
    const sites: { org: Org; path: string; ruleId: string }[] = [];
    for (let i = 0; i < 3; i++) {
      const org = await h.org(`Cycle ${i}`);
      const path = `/cycle/${i}`;
      await hook(org, path, ['alert.fired']);
      const rule = await api(h, org.keys.secret).createRule({ name: 'Checkout budget', trigger_type: 'budget', threshold: 20, page_pattern: '/checkout', channels: ['webhook', 'email'] });
      // /checkout: 10 visitors, 1 rage click from one of them (10 %: x1.5): 25 / 10 x 1.5 = raw 3.75,
      // score 100 x (1 - e^-0.375) = 100 x (1 - 0.68729) = 31.27, so 31.3 in the cycle's window:
      // over the budget of 20 (the top of calm). /home: 10 visitors, no signal: 0.
      await ingest(h, org.keys.secret, intervalTraffic(cycleAt - INTERVAL, [
        { page: '/checkout', signals: [{ type: 'rage_click', element: 'button.pay', count: 1 }] },
        { page: '/home' },
      ]));
      sites.push({ org, path, ruleId: rule.id });
    }

    // The race made certain: while the test holds score_history locked, a worker that claims a
    // site stops at its first write there, still holding the claim. Both workers are let go once
    // both wait at the lock; by then one of them has found the first site held by the other.
    let release!: () => void;
    const released = new Promise<void>((done) => { release = done; });
    let locked!: () => void;
    const isLocked = new Promise<void>((done) => { locked = done; });
    const lock = h.store.db.transaction().execute(async (trx) => {
      await sql`lock table score_history in exclusive mode`.execute(trx);
      locked();
      await released;
    });
    await isLocked;
    let workers: Mallard[];
    try {
      workers = await Promise.all([worker('worker-1'), worker('worker-2')]);
      // Both workers are stopped at the lock (pg_locks: this schema's score_history, not granted).
      await eventually(async () => Number((await sql<{ n: number }>`select count(*)::int as n from pg_locks where relation = 'score_history'::regclass and not granted`.execute(h.store.db)).rows[0].n) === 2,
        'both workers to wait at the lock', 1200);
    } finally {
      release();
      await lock;
    }
    const cycleIso = new Date(cycleAt).toISOString();
    // Each worker's first round reached every site: it ran the cycle, or found another process running it.
    await eventually(() => workers.every((w) => sites.every(({ org }) => [...logged(w, 'cycle done'), ...logged(w, 'cycle skipped: another process holds the site')]
      .some((l) => l.siteId === org.site_id && l.cycleAt === cycleIso))), 'both workers to take their turn at every site', 1200);
    // And the notifications went out: the outbox is done and the deliveries delivered, so nothing is left to send.
    await eventually(async () => {
      for (const { org } of sites) {
        const outbox = await h.store.db.selectFrom('outbox').select('status').where('site_id', '=', org.site_id).execute();
        const deliveries = await deliveriesOf(org.site_id);
        if (outbox.length === 0 || outbox.some((r) => r.status !== 'done') || deliveries.length === 0 || deliveries.some((d) => d.status !== 'delivered')) return false;
      }
      return true;
    }, 'every notification to be sent', 1200);

    // A worker started now (a restart) runs the same cycle again, after both: it must add nothing.
    const late = await worker('worker-3');
    await eventually(() => sites.every(({ org }) => logged(late, 'cycle done').some((l) => l.siteId === org.site_id && l.cycleAt === cycleIso)),
      'the late worker to run the cycle again', 1200);
    await eventually(async () => (await h.store.db.selectFrom('outbox').select('status').where('site_id', 'in', sites.map((x) => x.org.site_id)).where('status', '!=', 'done').execute()).length === 0,
      'anything queued to be sent', 1200);

    const skipped = workers.flatMap((w) => logged(w, 'cycle skipped: another process holds the site').filter((l) => l.cycleAt === cycleIso));
    expect(skipped.length, 'cycles a worker found held by the other').toBeGreaterThanOrEqual(1);
    for (const w of workers) {
      const done = logged(w, 'cycle done').filter((l) => l.cycleAt === cycleIso && sites.some((s) => s.org.site_id === l.siteId)).length;
      console.log(`multi-process cycle: ${w.name} ran ${done} of the ${sites.length} sites' cycle (the others it found held, or ran again after the other worker)`);
    }
    for (const { org, path, ruleId } of sites) {
      const pages = await h.store.db.selectFrom('score_history').select(['page']).where('site_id', '=', org.site_id).where('cycle_at', '=', cycleAt).execute();
      expect(pages.map((p) => p.page).sort()).toEqual(['/checkout', '/home']);
      expect(await h.store.db.selectFrom('site_score_history').select('id').where('site_id', '=', org.site_id).where('cycle_at', '=', cycleAt).execute()).toHaveLength(1);

      const alerts = await h.store.db.selectFrom('alerts').selectAll().where('site_id', '=', org.site_id).execute();
      expect(alerts).toHaveLength(1);
      expect(alerts[0]).toMatchObject({ rule_id: ruleId, page: '/checkout', score_after: 31.3 });
      const timeline = await h.store.db.selectFrom('alert_timeline').select('kind').where('alert_id', '=', alerts[0].id).execute();
      expect(timeline.filter((t) => t.kind === 'fired')).toHaveLength(1);
      expect(timeline.filter((t) => t.kind === 'notification_queued')).toHaveLength(1);

      // One job queued per channel, each sent once.
      const outbox = await h.store.db.selectFrom('outbox').select(['kind', 'attempts']).where('site_id', '=', org.site_id).orderBy('kind').execute();
      expect(outbox).toEqual([{ kind: 'event', attempts: 1 }, { kind: 'notify.email', attempts: 1 }]);
      const deliveries = await deliveriesOf(org.site_id);
      expect(deliveries).toHaveLength(1);
      expect(deliveries[0]).toMatchObject({ event_type: 'alert.fired', status: 'delivered', attempts: 1 });
      expect(receiver.to(path)).toHaveLength(1);
      expect(JSON.parse(receiver.to(path)[0].body)).toMatchObject({ type: 'alert.fired', data: { id: alerts[0].id } });
      expect(mail.mails.filter((m) => m.to.includes(org.email))).toHaveLength(1);
    }
  }, 150_000);

  it('two workers send every delivery once per attempt: the receiver counts what delivery_attempts records', async () => {
    const org = await h.org('Fan-out');
    const HOOKS = 3;
    const DEPLOYS = 10;
    for (let i = 0; i < HOOKS; i++) await hook(org, `/many/${i}`, ['deploy.recorded']);
    // Each delivery's first attempt gets a 500 and its retry (5 s later) a 200: two attempts each.
    const seen = new Set<string>();
    receiver.respond((r) => {
      if (!r.url.startsWith('/many/')) return undefined;
      const id = String(r.headers['webhook-id']);
      if (seen.has(id)) return { status: 200 };
      seen.add(id);
      return { status: 500 };
    });
    await Promise.all([worker('worker-1'), worker('worker-2')]);
    for (let i = 0; i < DEPLOYS; i++) await deploy(org, `v${i}`);

    await eventually(async () => {
      const deliveries = await deliveriesOf(org.site_id);
      return deliveries.length === HOOKS * DEPLOYS && deliveries.every((d) => d.status === 'delivered');
    }, 'every delivery to be delivered', 1200);

    const deliveries = await deliveriesOf(org.site_id);
    const attempts = await attemptsOf(org.site_id);
    const received = receiver.requests.filter((r) => r.url.startsWith('/many/'));
    expect(received).toHaveLength(attempts.length);
    for (const d of deliveries) {
      expect(d.attempts).toBe(2);
      expect(attempts.filter((a) => a.delivery_id === d.id).map((a) => [a.attempt, a.status_code])).toEqual([[1, 500], [2, 200]]);
      expect(received.filter((r) => r.headers['webhook-id'] === d.id)).toHaveLength(2);
    }
  }, 90_000);

  it('a worker killed mid-delivery leaves its claim to the other worker, which sends it once the lease runs out', async () => {
    // A receiver that holds the first request open (the send is in flight when the worker dies) and answers the next.
    const held: { id: string; at: number }[] = [];
    const answered: { id: string; at: number }[] = [];
    const holding = createHttpServer((req: IncomingMessage, res) => {
      req.resume();
      req.on('end', () => {
        const request = { id: String(req.headers['webhook-id']), at: Date.now() };
        if (held.length === 0) { held.push(request); return; }
        answered.push(request);
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((done) => holding.listen(0, '127.0.0.1', done));
    try {
      const org = await h.org('Killed');
      const res = await h.app.inject({
        method: 'POST', url: '/v1/manage/webhooks', headers: bearer(org.keys.secret),
        payload: { url: `http://127.0.0.1:${(holding.address() as AddressInfo).port}/hold`, events: ['deploy.recorded'] },
      });
      expect(res.statusCode, res.body).toBe(201);
      const env = { MALLARD_DELIVERY_LEASE_SEC: String(LEASE_SEC) };
      const first = await worker('worker-1', env);
      const deployedAt = Date.now();
      await deploy(org, 'v1');
      await eventually(() => held.length === 1, 'the first worker to send the delivery', 1200);

      // The claim is a lease: the row is due again LEASE_SEC after the first worker claimed it.
      const [claimed] = await deliveriesOf(org.site_id);
      expect(claimed).toMatchObject({ status: 'pending', attempts: 0, id: held[0].id });
      expect(claimed.next_attempt_at).toBeGreaterThanOrEqual(deployedAt + LEASE_SEC * 1000);
      expect(claimed.next_attempt_at).toBeLessThanOrEqual(held[0].at + LEASE_SEC * 1000);

      first.child.kill('SIGKILL');
      await exited(first.child);
      expect(first.child.signalCode).toBe('SIGKILL');
      await worker('worker-2', env);

      await eventually(async () => (await deliveriesOf(org.site_id))[0].status === 'delivered', 'the second worker to deliver', 2400);
      // Sent again only once the lease had run out, under the same webhook-id, and recorded once.
      expect(answered).toHaveLength(1);
      expect(answered[0].id).toBe(claimed.id);
      expect(answered[0].at).toBeGreaterThanOrEqual(claimed.next_attempt_at!);
      const [delivered] = await deliveriesOf(org.site_id);
      expect(delivered).toMatchObject({ status: 'delivered', attempts: 1, last_status_code: 200 });
      const attempts = await attemptsOf(org.site_id);
      expect(attempts.map((a) => [a.attempt, a.status_code])).toEqual([[1, 200]]);
    } finally {
      holding.closeAllConnections();
      await new Promise((done) => holding.close(done));
    }
  }, 90_000);
});

it('MALLARD_DELIVERY_LEASE_SEC sets the delivery lease: a minute by default, never shorter than the slowest send\'s timeout', () => {
  expect(loadConfig({ MALLARD_SECRET: TEST_SECRET }).deliveryLeaseMs).toBe(60_000);
  expect(loadConfig({ MALLARD_SECRET: TEST_SECRET, MALLARD_DELIVERY_LEASE_SEC: '35' }).deliveryLeaseMs).toBe(35_000);
  expect(() => loadConfig({ MALLARD_SECRET: TEST_SECRET, MALLARD_DELIVERY_LEASE_SEC: '34' })).toThrow('MALLARD_DELIVERY_LEASE_SEC must be between 35 and 3600, got 34');
});
