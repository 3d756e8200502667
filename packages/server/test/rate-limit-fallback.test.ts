// Redis gone at run time (issue 32, item 3): the limiter server.ts builds for REDIS_URL counts
// in Redis while it answers; killed or hung, every limit (query and manage per org, ingest per
// key, logins, the failed-authentication lockout, sdk-config) is counted in this process's
// memory instead, with one warning per outage and the metrics moved, and never a 500; once
// Redis answers again counting returns there by itself. A private redis-server of the test's
// own is killed and restarted; the shared one is never touched.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLimiter } from '../src/server.ts';
import { MINUTE_MS } from '../src/domain/time.ts';
import { FAILED_AUTH_PER_MIN } from '../src/domain/rate-limits.ts';
import { REDIS_BACK_MESSAGE, REDIS_DOWN_MESSAGE } from '../src/store/fallback-rate-limit.ts';
import type { RateLimiter } from '../src/store/rate-limit.ts';
import { bearer, testConfig, useHarness, type Org } from './helpers/harness.ts';
import { eventually } from './helpers/delivery-kit.ts';
import { batch, hex32, postIngest } from './helpers/ingest-kit.ts';
import { privateRedisAvailable, startPrivateRedis, type PrivateRedis } from './helpers/private-redis.ts';

const LIMITS = { query: 5, manage: 30, ingest: 3, guide: 200, mcp: 300 };

describe.skipIf(!privateRedisAvailable('Redis fallback suite'))('rate limits when Redis goes away at run time', () => {
  let redis: PrivateRedis;
  let limiter: RateLimiter;
  let reader: Redis; // a separate client, only to read the counters
  const logged: { level: 'warn' | 'info'; msg: string; fields: Record<string, unknown> }[] = [];

  beforeAll(async () => {
    redis = await startPrivateRedis();
    limiter = createLimiter(testConfig({ redisUrl: redis.url }), {
      warn: (fields, msg) => { logged.push({ level: 'warn', msg, fields: fields as Record<string, unknown> }); },
      info: (fields, msg) => { logged.push({ level: 'info', msg, fields: fields as Record<string, unknown> }); },
    });
    reader = new Redis(redis.url);
    reader.on('error', () => {}); // it reconnects by itself after each restart
  });
  afterAll(async () => {
    await limiter?.close();
    reader?.disconnect();
    await redis?.stop();
  });
  const h = useHarness('sqlite', () => ({ limiter, config: { rateLimits: { ...LIMITS } } }));

  const whoami = (org: Org) => h.app.inject({ method: 'GET', url: '/v1/query/whoami', headers: bearer(org.keys.secret) });
  const windowStart = () => Math.floor(h.clock.now() / MINUTE_MS) * MINUTE_MS;
  const countInRedis = async (bucket: string) => Number(await reader.get(`mallard:rl:${bucket}:${windowStart()}`) ?? 0);
  const warnings = () => logged.filter((l) => l.level === 'warn' && l.msg === REDIS_DOWN_MESSAGE);
  const returns = () => logged.filter((l) => l.level === 'info' && l.msg === REDIS_BACK_MESSAGE);
  async function metric(name: string) {
    const res = await h.app.inject({ method: 'GET', url: '/metrics' });
    const line = res.body.split('\n').find((l) => l.startsWith(`${name} `));
    if (!line) throw new Error(`no ${name} in /metrics`);
    return Number(line.split(' ')[1]);
  }
  const redisUp = () => metric('mallard_rate_limit_redis_up');

  /** Sends the query surface's whole limit for the org, then one more: every request answered, the last refused. */
  async function spendQueryLimit(org: Org) {
    const statuses: number[] = [];
    for (let i = 0; i <= LIMITS.query; i++) statuses.push((await whoami(org)).statusCode);
    expect(statuses).toEqual([...Array(LIMITS.query).fill(200), 429]);
  }

  it('counts in Redis while it is up', async () => {
    await eventually(async () => (await redisUp()) === 1, 'the limiter to connect');
    const org = await h.org('Up');
    for (let i = 0; i < 2; i++) expect((await whoami(org)).statusCode).toBe(200);
    expect(await countInRedis(`query:org:${org.org_id}`)).toBe(2);
    expect(await metric('mallard_rate_limit_redis_outages_total')).toBe(0);
    expect(warnings()).toEqual([]);
  });

  it('with Redis killed, every limit is counted in this process: answered, a full window refused with 429, never a 500, one warning', async () => {
    h.clock.advance(MINUTE_MS);
    const fallbackBefore = await metric('mallard_rate_limit_fallback_checks_total');
    await redis.kill();

    // The query surface per org: the limit holds in memory.
    const org = await h.org('Killed');
    await spendQueryLimit(org);
    const refused = await whoami(org);
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error).toMatchObject({ code: 'rate_limited' });
    expect(refused.headers['ratelimit-remaining']).toBe('0');

    // Manage per org, logins per email and address, sdk-config: answered as usual.
    expect((await h.app.inject({ method: 'GET', url: '/v1/manage/settings', headers: bearer(org.keys.secret) })).statusCode).toBe(200);
    expect((await h.app.inject({ method: 'POST', url: '/v1/auth/login', payload: { email: org.email, password: org.password } })).statusCode).toBe(200);
    expect((await h.app.inject({ method: 'GET', url: `/v1/sdk-config?key=${org.keys.publishable}` })).statusCode).toBe(200);

    // Ingest per publishable key: the limit's batches acknowledged, the next refused.
    const sid = hex32();
    const ingestStatuses: number[] = [];
    for (let i = 0; i <= LIMITS.ingest; i++) {
      const res = await postIngest(h, batch(h, org, sid, [{ type: 'pageview', ts: h.clock.now() - 1000, page: `/fallback/${i}` }]));
      ingestStatuses.push(res.statusCode);
    }
    expect(ingestStatuses).toEqual([...Array(LIMITS.ingest).fill(202), 429]);

    // The failed-authentication lockout per address: 401s counted, then 429 before trying.
    const wrongKey = () => h.app.inject({ method: 'GET', url: '/v1/query/whoami', headers: bearer('svc_sec_not-a-key'), remoteAddress: '203.0.113.7' });
    for (let i = 0; i < FAILED_AUTH_PER_MIN; i++) expect((await wrongKey()).statusCode).toBe(401);
    expect((await wrongKey()).statusCode).toBe(429);

    await eventually(() => warnings().length > 0, 'the warning');
    expect(warnings()).toHaveLength(1);
    expect(await redisUp()).toBe(0);
    expect(await metric('mallard_rate_limit_redis_outages_total')).toBe(1);
    // Every check above (about 50) was answered by the process's own counters.
    expect(await metric('mallard_rate_limit_fallback_checks_total')).toBeGreaterThanOrEqual(fallbackBefore + LIMITS.query + 1 + LIMITS.ingest + 1 + FAILED_AUTH_PER_MIN);
  });

  it('with Redis restarted, counting returns to Redis by itself, with one line saying so', async () => {
    await redis.restart();
    await eventually(async () => (await redisUp()) === 1, 'the limiter to find Redis again', 400);
    expect(returns()).toHaveLength(1);
    expect(returns()[0].fields).toMatchObject({ downMs: expect.any(Number), fallbackChecks: expect.any(Number) });

    const org = await h.org('Back');
    for (let i = 0; i < 3; i++) expect((await whoami(org)).statusCode).toBe(200);
    expect(await countInRedis(`query:org:${org.org_id}`)).toBe(3);
    expect(warnings()).toHaveLength(1);
  });

  it('a hung Redis (connection open, no answers) is a second outage: answered from memory, one more warning, and back once it answers', async () => {
    h.clock.advance(MINUTE_MS);
    const org = await h.org('Hung');
    redis.pause();
    try {
      // The first check waits out the command timeout, then every check is answered in memory.
      await spendQueryLimit(org);
      expect(warnings()).toHaveLength(2);
      expect(await redisUp()).toBe(0);
      expect(await metric('mallard_rate_limit_redis_outages_total')).toBe(2);
    } finally {
      redis.resume();
    }
    await eventually(async () => (await redisUp()) === 1, 'the limiter to find Redis again', 400);
    expect(returns()).toHaveLength(2);
    const next = await h.org('After hang');
    expect((await whoami(next)).statusCode).toBe(200);
    expect(await countInRedis(`query:org:${next.org_id}`)).toBe(1);
  });
});
