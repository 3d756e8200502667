// The read cache (store/read-cache.ts, store/table-changes.ts): an answer is served again only
// while no table it read has a committed write since it began, no other connection has
// committed on SQLite, and it is younger than maxAgeMs by the request's clock; the routes that
// use it answer after a write exactly as they did without it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Type } from '@sinclair/typebox';
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../src/clock.ts';
import { ConfigError, loadConfig } from '../src/config.ts';
import { buildApp } from '../src/app.ts';
import { Envelope, okOnce } from '../src/http/envelope.ts';
import { startServer } from '../src/server.ts';
import { ReadCache } from '../src/store/read-cache.ts';
import { openStore, type Store } from '../src/store/db.ts';
import { classify, TableChanges } from '../src/store/table-changes.ts';
import { bearer, eachDialect, testConfig, useHarness, type Harness } from './helpers/harness.ts';
import { api } from './helpers/alert-traffic.ts';
import { HOUR, MIN, cycle, freshStart, ok, sendVisits, visits, type SignalSpec } from './helpers/traffic.ts';

const PAY: SignalSpec = { type: 'rage_click', element: 'button.pay', label: 'Pay now' };

describe('which tables a statement names', () => {
  it('finds every known table, reads and writes apart', () => {
    expect(classify('select "page_scores".* from "page_scores" where "site_id" = ?')).toEqual({ tables: ['page_scores'], writes: false });
    expect(classify('select s.updated_at from signals s inner join "events" e on e.id = s.event_id')).toEqual({ tables: ['signals', 'events'], writes: false });
    expect(classify('insert into "events" ("id") values (?) on conflict do nothing returning id')).toEqual({ tables: ['events'], writes: true });
    expect(classify('update "ux_issues" set "status" = ? where "id" = ?').writes).toBe(true);
    expect(classify('delete from element_rollup where site_id = ?')).toEqual({ tables: ['element_rollup'], writes: true });
    expect(classify('begin immediate')).toEqual({ tables: [], writes: false });
  });
});

/** A computation over the org's site names that counts how often it ran. */
function siteNames(store: Store, orgId: string) {
  const counter = { runs: 0 };
  const compute = async () => {
    counter.runs++;
    const rows = await store.readDb.selectFrom('sites').select('name').where('org_id', '=', orgId).orderBy('name').execute();
    return rows.map((r) => r.name);
  };
  return { counter, compute };
}

const nameOf = async (store: Store, siteId: string) =>
  (await store.db.selectFrom('sites').select('name').where('id', '=', siteId).executeTakeFirstOrThrow()).name;

const renameSite = (store: Store, siteId: string, name: string) =>
  store.db.updateTable('sites').set({ name }).where('id', '=', siteId).execute();

eachDialect('read cache', (dialect) => {
  const h = useHarness(dialect.name, { raisedLimits: true });

  /** A new org, the store's cache, and a counted computation of the org's site names under a key of its own. */
  async function newOrgsNames() {
    const org = await h.org('Cache');
    const { counter, compute } = siteNames(h.store, org.org_id);
    const name = await nameOf(h.store, org.site_id);
    return { org, cache: h.store.readCache, counter, compute, now: h.clock.now(), key: `names-${org.org_id}`, name };
  }

  it('serves an answer again until a table it read has a committed write; other tables\' writes leave it', async () => {
    const { org, cache, counter, compute, now, key, name } = await newOrgsNames();
    expect(await cache.get(key, now, compute)).toEqual([name]);
    expect(await cache.get(key, now, compute)).toEqual([name]);
    expect(counter.runs).toBe(1);

    await h.store.db.updateTable('orgs').set({ name: 'Renamed org' }).where('id', '=', org.org_id).execute();
    expect(await cache.get(key, now, compute)).toEqual([name]);
    expect(counter.runs).toBe(1);

    await renameSite(h.store, org.site_id, 'Renamed site');
    expect(await cache.get(key, now, compute)).toEqual(['Renamed site']);
    expect(counter.runs).toBe(2);
  });

  it('marks a transaction\'s writes when it commits, not before, and not at all when it rolls back', async () => {
    const { org, cache, counter, compute, now, key, name } = await newOrgsNames();
    await cache.get(key, now, compute);

    await expect(h.store.db.transaction().execute(async (trx) => {
      await trx.updateTable('sites').set({ name: 'Never' }).where('id', '=', org.site_id).execute();
      throw new Error('roll back');
    })).rejects.toThrow('roll back');
    expect(await cache.get(key, now, compute)).toEqual([name]);
    expect(counter.runs).toBe(1);

    const clockBefore = h.store.changes.now();
    await h.store.db.transaction().execute(async (trx) => {
      await trx.updateTable('sites').set({ name: 'Committed' }).where('id', '=', org.site_id).execute();
      expect(h.store.changes.now()).toBe(clockBefore);
    });
    expect(h.store.changes.now()).toBeGreaterThan(clockBefore);
    expect(await cache.get(key, now, compute)).toEqual(['Committed']);
    expect(counter.runs).toBe(2);
  });

  it('keeps an answer for less than maxAgeMs by the request\'s clock, and never for an earlier request', async () => {
    const { cache, counter, compute, now: t, key } = await newOrgsNames();
    await cache.get(key, t, compute);
    await cache.get(key, t + 999, compute);
    expect(counter.runs).toBe(1);
    await cache.get(key, t + 1000, compute);
    expect(counter.runs).toBe(2);
    await cache.get(key, t + 999, compute);
    expect(counter.runs).toBe(3);
  });

  it('ages an answer from when it was ready, so one slower to compute than maxAgeMs is still served', async () => {
    const { cache, counter, compute, now: t, key } = await newOrgsNames();
    let open!: () => void;
    const gate = new Promise<void>((resolve) => { open = resolve; });
    const slow = async () => { await gate; return compute(); };
    const first = cache.get(key, t, slow);
    // The computation takes 1.5 s of the clock, longer than the 1 s the cache keeps an answer.
    h.clock.set(t + 1500);
    expect(cache.get(key, t + 1200, slow)).toBe(first);
    open();
    await first;
    expect(counter.runs).toBe(1);
    await cache.get(key, t + 1500, compute);
    await cache.get(key, t + 2499, compute);
    expect(counter.runs).toBe(1);
    await cache.get(key, t + 2500, compute);
    expect(counter.runs).toBe(2);
  });

  it('lets requests share a computation under way, unless a write committed after it began', async () => {
    const { org, cache, counter, compute, now, key } = await newOrgsNames();
    let open!: () => void;
    const gate = new Promise<void>((resolve) => { open = resolve; });
    const slow = async () => { await gate; return compute(); };

    const first = cache.get(key, now, slow);
    const second = cache.get(key, now, slow);
    expect(second).toBe(first);
    await renameSite(h.store, org.site_id, 'During');
    const third = cache.get(key, now, slow);
    expect(third).not.toBe(first);
    open();
    expect(await third).toEqual(['During']);
    await Promise.all([first, second]);
    expect(counter.runs).toBe(2);
    // The answer kept is the one begun after the write.
    expect(await cache.get(key, now, compute)).toEqual(['During']);
    expect(counter.runs).toBe(2);
  });

  it('does not keep a failed computation', async () => {
    const cache = h.store.readCache;
    const now = h.clock.now();
    let runs = 0;
    const failing = async () => { runs++; throw new Error('read failed'); };
    await expect(cache.get('failing', now, failing)).rejects.toThrow('read failed');
    await expect(cache.get('failing', now, failing)).rejects.toThrow('read failed');
    expect(runs).toBe(2);
  });

  it('a write by another connection shows at once on SQLite, and within maxAgeMs on PostgreSQL', async () => {
    const { org, cache, counter, compute, now, key } = await newOrgsNames();
    await cache.get(key, now, compute);
    const other = openStore(h.storeUrl, { sqliteReaders: 0, poolSize: 1 });
    try {
      await renameSite(other, org.site_id, 'Elsewhere');
    } finally {
      await other.close();
    }
    if (dialect.name === 'sqlite') {
      expect(await cache.get(key, now, compute)).toEqual(['Elsewhere']);
      expect(counter.runs).toBe(2);
    } else {
      expect(await cache.get(key, now + 1000, compute)).toEqual(['Elsewhere']);
      expect(counter.runs).toBe(2);
    }
  });

  it('every cached route answers as the same app without the cache, after each kind of write', async () => {
    const uncached = await buildApp({
      config: h.config, clock: h.clock, limiter: h.limiter,
      store: { ...h.store, readCache: new ReadCache({ changes: h.store.changes, maxAgeMs: 0, dataVersion: () => null }) },
    });
    try {
      const { org, start: S, prefix } = await freshStart(h);
      const a = api(h, org.keys.secret);
      await a.createRule({ name: 'Budget', trigger_type: 'budget', threshold: 10 });
      h.clock.set(S + HOUR);
      const q = `site_id=${org.site_id}`;
      const urls = [
        `/v1/query/scores?${q}`, `/v1/query/page?${q}&page=%2Fcheckout`, `/v1/query/trends?${q}&days=7`,
        `/v1/query/trends?${q}&page=%2Fcheckout`, `/v1/query/compare?${q}&a=%2Fcheckout&b=%2Fcart`,
        `/v1/query/elements?${q}&page=%2Fcheckout`, `/v1/query/page-heatmap?${q}&page=%2Fcheckout`,
        `/v1/query/element-heatmap?${q}&page=%2Fcheckout&selector=button.pay`, `/v1/query/journeys/friction?${q}`,
        `/v1/query/flows?${q}`, `/v1/query/deploys?${q}`, `/v1/query/issues?${q}`, `/v1/query/issues?${q}&status=triaged`,
        `/v1/query/alerts?${q}`, `/v1/query/revenue?${q}`, `/v1/query/recommendations?${q}`,
      ];
      const same = async (step: string) => {
        for (const url of urls) {
          const headers = bearer(org.jwt);
          const cached = await h.app.inject({ method: 'GET', url, headers });
          const fresh = await uncached.inject({ method: 'GET', url, headers });
          // Before any traffic the page routes answer 404 (no data for the page); both must.
          expect(cached.statusCode, `${step}: ${url}: ${cached.body}`).toBe(step === 'empty' ? fresh.statusCode : 200);
          expect(JSON.parse(cached.body), `${step}: ${url}`).toEqual(JSON.parse(fresh.body));
        }
      };
      await same('empty');
      const withDetails = async (step: string) => {
        const issue = (await a.get('/v1/query/issues')).issues[0];
        const alert = (await a.alerts()).alerts[0];
        const deploy = (await a.get('/v1/query/deploys')).deploys[0];
        urls.push(`/v1/query/issues/${issue.id}?${q}`, `/v1/query/alerts/${alert.id}?${q}`, `/v1/query/deploys/${deploy.id}?${q}`, `/v1/query/mcp/context?${q}`);
        await same(step);
      };
      await sendVisits(h, org, prefix, [
        // The same visitors on /cart, then /checkout: multi-page sessions for flows and friction.
        ...visits(1, 8, '/cart', S + 5 * MIN, { type: 'dead_click', element: 'a.back' }, 2),
        ...visits(1, 8, '/checkout', S + 10 * MIN, PAY, 6),
      ]);
      await same('after ingest');
      expect((await a.call('POST', '/v1/manage/deploys', { version: 'v1' })).status).toBe(201);
      await cycle(h, org.site_id, S + HOUR);
      await withDetails('after a cycle');
      const issue = (await a.get('/v1/query/issues')).issues[0];
      await a.call('PATCH', `/v1/manage/issues/${issue.id}`, { status: 'triaged' });
      await same('after an issue change');
      const alert = (await a.alerts()).alerts[0];
      await a.call('PATCH', `/v1/manage/alerts/${alert.id}`, { status: 'acknowledged' });
      await same('after an alert change');
      expect((await a.call('POST', '/v1/manage/deploys', { version: 'v2' })).status).toBe(201);
      await same('after a deploy');
      h.clock.advance(2 * HOUR);
      await same('two hours later');
    } finally {
      await uncached.close();
    }
  });

  describe('routes answer after a write as without the cache', () => {
    async function checkoutTraffic(h: Harness) {
      const { org, start: S, prefix } = await freshStart(h);
      h.clock.set(S + HOUR);
      await sendVisits(h, org, prefix, visits(1, 6, '/checkout', S + 10 * MIN, PAY, 4));
      return { org, S, prefix };
    }

    it('page: signals ingested after an answer are in the next one (the ingest path marks its tables)', async () => {
      const { org, S, prefix } = await checkoutTraffic(h);
      const url = `/v1/query/page?site_id=${org.site_id}&page=%2Fcheckout`;
      const before = await ok(h, org.jwt, 'GET', url);
      expect(before.elements).toEqual([expect.objectContaining({ element_selector: 'button.pay', signal_count: 4 })]);
      await sendVisits(h, org, prefix, visits(20, 3, '/checkout', S + 20 * MIN, PAY, 3));
      const after = await ok(h, org.jwt, 'GET', url);
      expect(after.elements).toEqual([expect.objectContaining({ element_selector: 'button.pay', signal_count: 7 })]);
    });

    it('scores after a cycle, issues after a status change, alerts after an acknowledgement', async () => {
      const { org, start: S, prefix } = await freshStart(h);
      const a = api(h, org.keys.secret);
      await a.createRule({ name: 'Budget', trigger_type: 'budget', threshold: 10 });
      h.clock.set(S + HOUR);
      expect((await a.get('/v1/query/scores')).site.pages).toEqual([]);
      expect((await a.get('/v1/query/issues')).issues).toEqual([]);
      expect((await a.alerts()).alerts).toEqual([]);

      await sendVisits(h, org, prefix, visits(1, 8, '/checkout', S + 10 * MIN, PAY, 6));
      await cycle(h, org.site_id, S + HOUR);
      expect((await a.get('/v1/query/scores')).site.pages.map((p: { page: string }) => p.page)).toEqual(['/checkout']);
      const issues = (await a.get('/v1/query/issues')).issues;
      expect(issues.map((i: { page: string; status: string }) => [i.page, i.status])).toEqual([['/checkout', 'open']]);
      const alerts = (await a.alerts()).alerts;
      expect(alerts.map((x) => [x.rule_name, x.status])).toEqual([['Budget', 'fired']]);

      expect((await a.call('PATCH', `/v1/manage/issues/${issues[0].id}`, { status: 'triaged' })).status).toBe(200);
      expect((await a.get('/v1/query/issues')).issues[0].status).toBe('triaged');
      expect((await a.call('PATCH', `/v1/manage/alerts/${alerts[0].id}`, { status: 'acknowledged' })).status).toBe(200);
      expect((await a.alerts()).alerts[0].status).toBe('acknowledged');
    });
  });
});

describe('MALLARD_READ_CACHE_MS', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mallard-read-cache-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('defaults to 1000 ms, takes 0 to 60000, and 0 computes every answer afresh', async () => {
    const env = { DATABASE_URL: `sqlite:${join(dir, 'config.db')}`, MALLARD_SECRET: 'x'.repeat(40) };
    expect(loadConfig(env).readCacheMs).toBe(1000);
    expect(loadConfig({ ...env, MALLARD_READ_CACHE_MS: '0' }).readCacheMs).toBe(0);
    expect(loadConfig({ ...env, MALLARD_READ_CACHE_MS: '60000' }).readCacheMs).toBe(60_000);
    expect(() => loadConfig({ ...env, MALLARD_READ_CACHE_MS: '60001' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...env, MALLARD_READ_CACHE_MS: '-1' })).toThrow(ConfigError);

    const server = await startServer(testConfig({ databaseUrl: `sqlite:${join(dir, 'off.db')}`, readCacheMs: 0 }), undefined, { worker: false });
    try {
      let runs = 0;
      const compute = async () => ++runs;
      expect(server.store.readCache.enabled).toBe(false);
      await server.store.readCache.get('k', 0, compute);
      await server.store.readCache.get('k', 0, compute);
      expect(runs).toBe(2);
    } finally {
      await server.stop();
    }
    // Its requests' times come from this clock, as the app's do.
    const on = await startServer(testConfig({ databaseUrl: `sqlite:${join(dir, 'on.db')}`, readCacheMs: 500 }), new ManualClock(0), { worker: false });
    try {
      let runs = 0;
      const compute = async () => ++runs;
      await on.store.readCache.get('k', 0, compute);
      await on.store.readCache.get('k', 499, compute);
      await on.store.readCache.get('k', 500, compute);
      expect(runs).toBe(2);
    } finally {
      await on.stop();
    }
  });
});

describe('the read cache\'s size', () => {
  it('keeps answers within maxBytes (their JSON), evicting the least recent, and never one over a quarter of it', async () => {
    const cache = new ReadCache({ changes: new TableChanges(), maxAgeMs: 1000, dataVersion: () => null, maxBytes: 400 });
    const runs = new Map<string, number>();
    // A string of n characters is n + 2 of JSON.
    const get = (key: string, n: number) => cache.get(key, 0, async () => { runs.set(key, (runs.get(key) ?? 0) + 1); return 'x'.repeat(n - 2); });
    for (const key of ['a', 'b', 'c', 'd']) await get(key, 100);
    for (const key of ['a', 'b', 'c', 'd']) await get(key, 100);
    expect([...runs.values()]).toEqual([1, 1, 1, 1]);
    // A fifth makes 500 bytes: the least recently used (a) goes.
    await get('e', 100);
    await get('b', 100);
    await get('a', 100);
    expect(runs.get('a')).toBe(2);
    expect(runs.get('b')).toBe(1);
    // 101 bytes is over a quarter of 400: served, never kept, and nothing else evicted for it.
    await get('big', 101);
    await get('big', 101);
    expect(runs.get('big')).toBe(2);
    await get('e', 100);
    expect(runs.get('e')).toBe(1);
  });
});

describe('okOnce: a kept answer is serialized once', () => {
  it('serializes by the route\'s response schema the first time, then sends the same bytes for the same object', async () => {
    const app = Fastify();
    const answer = { a: 1, secret: 'not in the schema' };
    app.get('/x', {
      schema: { response: { 200: Envelope(Type.Object({ a: Type.Number() })) } },
    }, async (_request, reply) => okOnce(reply, answer));
    try {
      const first = await app.inject({ method: 'GET', url: '/x' });
      expect(first.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(first.json()).toEqual({ data: { a: 1 }, error: null });
      // Kept answers are never changed in place; changing one shows that the bytes were kept.
      answer.a = 2;
      expect((await app.inject({ method: 'GET', url: '/x' })).body).toBe(first.body);
    } finally {
      await app.close();
    }
  });
});
