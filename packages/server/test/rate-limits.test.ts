// Rate limits (spec "Limits", DESIGN "Rate limits"): fixed one-minute windows on the injected
// clock, per org for query and manage, refused requests never counted, /fun and health never
// limited, logins per email and IP, failed authentications per IP. Every case runs with the
// in-memory limiter and with Redis, on both dialects.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_RATE_LIMITS, loadConfig } from '../src/config.ts';
import { MINUTE_MS as MINUTE } from '../src/domain/time.ts';
import { MemoryRateLimiter, RedisRateLimiter, type RateLimiter } from '../src/store/rate-limit.ts';
import { bearer, createHarness, eachDialect, useHarness } from './helpers/harness.ts';
import { redisAvailable, TEST_REDIS_URL } from './helpers/services.ts';

type LimiterKind = 'memory' | 'redis';

const LIMITERS: { limiter: LimiterKind; skip: boolean }[] = [
  { limiter: 'memory', skip: false },
  { limiter: 'redis', skip: !redisAvailable },
];

/** A UTC time on a fixed day: the clock is always set explicitly, never read from the wall. */
const at = (hh: number, mm: number, ss = 0, ms = 0) => Date.UTC(2026, 10, 2, hh, mm, ss, ms);

for (const { limiter: kind, skip: noLimiter } of LIMITERS) eachDialect(`rate limits with the ${kind} limiter`, ({ name, skip }) => {
  let limiter: RateLimiter;
  let redis: Redis | null = null; // a separate client, only to read counters
  const prefix = `mallard:test:${randomBytes(8).toString('hex')}:`;

  beforeAll(async () => {
    if (kind === 'redis') {
      limiter = new RedisRateLimiter(new Redis(TEST_REDIS_URL), prefix);
      redis = new Redis(TEST_REDIS_URL);
    } else {
      limiter = new MemoryRateLimiter();
    }
  });

  afterAll(async () => {
    if (redis) {
      // Only this suite's keys (they would expire by themselves a minute later anyway).
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    }
    await limiter?.close();
  });
  // After the hooks above: built with their limiter, closed before it.
  const h = useHarness(name, () => ({ limiter }));

  const whoami = (token: string, extra: Record<string, string> = {}) =>
    h.app.inject({ method: 'GET', url: '/v1/query/whoami', headers: { ...bearer(token), ...extra } });
  const settings = (token: string) => h.app.inject({ method: 'GET', url: '/v1/manage/settings', headers: bearer(token) });

  /** Sends n requests and checks every one succeeded, returning the last. */
  async function spend(n: number, send: () => ReturnType<typeof whoami>) {
    let last: Awaited<ReturnType<typeof whoami>> | undefined;
    for (let i = 0; i < n; i++) {
      last = await send();
      expect(last.statusCode, `request ${i + 1}: ${last.body}`).toBe(200);
    }
    return last!;
  }

  /** The stored count of a bucket in the current window, through the limiter and, for Redis, the raw key. */
  async function counter(bucket: string): Promise<number> {
    const now = h.clock.now();
    const peeked = await h.limiter.peek(bucket, MINUTE, now);
    if (redis) {
      const raw = await redis.get(`${prefix}${bucket}:${Math.floor(now / MINUTE) * MINUTE}`);
      expect(Number(raw ?? 0)).toBe(peeked);
    }
    return peeked;
  }

  function expectRateLimited(res: Awaited<ReturnType<typeof whoami>>, resetAt?: number) {
    expect(res.statusCode, res.body).toBe(429);
    const body = res.json();
    expect(body.data).toBeNull();
    expect(body.error).toMatchObject({ code: 'rate_limited', status: 429 });
    const reset = body.error.details?.reset_at as string;
    expect(reset).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
    const resetMs = Date.parse(reset);
    expect(Number.isNaN(resetMs)).toBe(false);
    expect(resetMs).toBeGreaterThan(h.clock.now());
    if (resetAt !== undefined) expect(resetMs).toBe(resetAt);
    const retryAfter = res.headers['retry-after'];
    expect(retryAfter).toMatch(/^\d+$/);
    expect(Number(retryAfter)).toBe(Math.max(1, Math.ceil((resetMs - h.clock.now()) / 1000)));
    return resetMs;
  }

  it.skipIf(skip)('query responses carry RateLimit headers and Remaining counts down', async () => {
    h.clock.set(at(10, 0, 0));
    const org = await h.org('Headers');
    for (let i = 1; i <= 5; i++) {
      const res = await whoami(org.keys.secret);
      expect(res.statusCode).toBe(200);
      expect(res.headers['ratelimit-limit']).toBe('100');
      expect(res.headers['ratelimit-remaining']).toBe(String(100 - i));
      expect(res.headers['ratelimit-reset']).toBe('60');
    }
    h.clock.advance(42_250);
    const later = await whoami(org.keys.secret);
    expect(later.headers['ratelimit-remaining']).toBe('94');
    expect(later.headers['ratelimit-reset']).toBe('18'); // ceil(17.75 s) to the window end
    expect(await counter(`query:org:${org.org_id}`)).toBe(6);
  });

  it.skipIf(skip)('the 101st query request of an org in a minute is 429 rate_limited with reset_at and Retry-After', async () => {
    h.clock.set(at(10, 5, 12, 345));
    const org = await h.org('Burst');
    const last = await spend(100, () => whoami(org.keys.secret));
    expect(last.headers['ratelimit-remaining']).toBe('0');
    const refused = await whoami(org.keys.secret);
    expectRateLimited(refused, at(10, 6, 0));
    expect(refused.headers['retry-after']).toBe('48'); // 47.655 s to 10:06:00, rounded up
    expect(refused.headers['ratelimit-limit']).toBe('100');
    expect(refused.headers['ratelimit-remaining']).toBe('0');
    // Every other query route of the org shares the same budget.
    const raw = await h.app.inject({ method: 'GET', url: '/v1/query/raw?table=events', headers: bearer(org.keys.secret) });
    expectRateLimited(raw, at(10, 6, 0));
  });

  it.skipIf(skip)('two keys (and a user token) of the same org share one budget', async () => {
    h.clock.set(at(10, 10, 0));
    const org = await h.org('Shared');
    const jwt = await h.login(org.email, org.password);
    for (let i = 0; i < 50; i++) {
      const res = await whoami(i % 2 === 0 ? org.keys.secret : org.keys.mcp);
      expect(res.statusCode).toBe(200);
      expect(res.headers['ratelimit-remaining']).toBe(String(99 - i));
    }
    await spend(49, () => whoami(org.keys.mcp));
    const hundredth = await whoami(jwt);
    expect(hundredth.statusCode).toBe(200);
    expect(hundredth.headers['ratelimit-remaining']).toBe('0');
    expectRateLimited(await whoami(org.keys.secret));
    expectRateLimited(await whoami(org.keys.mcp));
    expectRateLimited(await whoami(jwt));
    expect(await counter(`query:org:${org.org_id}`)).toBe(100);
  });

  it.skipIf(skip)('another org keeps its whole budget when one org is exhausted', async () => {
    h.clock.set(at(10, 15, 0));
    const busy = await h.org('Busy');
    const quiet = await h.org('Quiet');
    await spend(100, () => whoami(busy.keys.secret));
    expectRateLimited(await whoami(busy.keys.secret));
    const other = await whoami(quiet.keys.secret);
    expect(other.statusCode).toBe(200);
    expect(other.headers['ratelimit-remaining']).toBe('99');
    expect(await counter(`query:org:${quiet.org_id}`)).toBe(1);
  });

  it.skipIf(skip)('the manage surface has its own budget of 30, and GET /v1/manage/settings counts as manage', async () => {
    h.clock.set(at(10, 20, 0));
    const org = await h.org('Manage');
    for (let i = 1; i <= 30; i++) {
      const res = await settings(org.keys.secret);
      expect(res.statusCode).toBe(200);
      expect(res.headers['ratelimit-limit']).toBe('30');
      expect(res.headers['ratelimit-remaining']).toBe(String(30 - i));
    }
    const refused = await settings(org.keys.secret);
    expectRateLimited(refused, at(10, 21, 0));
    expect(refused.headers['ratelimit-limit']).toBe('30');
    // A write on the manage surface is refused too, before its body is even read.
    const patch = await h.app.inject({
      method: 'PATCH', url: '/v1/manage/settings', headers: { ...bearer(org.keys.secret), 'content-type': 'application/json' }, payload: '{"duck_facts":',
    });
    expectRateLimited(patch);
    // The query budget is untouched by manage traffic.
    const query = await whoami(org.keys.secret);
    expect(query.statusCode).toBe(200);
    expect(query.headers['ratelimit-limit']).toBe('100');
    expect(query.headers['ratelimit-remaining']).toBe('99');
    expect(await counter(`manage:org:${org.org_id}`)).toBe(30);
    expect(await counter(`query:org:${org.org_id}`)).toBe(1);
  });

  it.skipIf(skip)('an exhausted query budget leaves the manage budget alone', async () => {
    h.clock.set(at(10, 25, 0));
    const org = await h.org('QueryOnly');
    await spend(100, () => whoami(org.keys.secret));
    expectRateLimited(await whoami(org.keys.secret));
    const manage = await settings(org.keys.secret);
    expect(manage.statusCode).toBe(200);
    expect(manage.headers['ratelimit-remaining']).toBe('29');
  });

  it.skipIf(skip)('an authenticated request that fails validation still counts', async () => {
    h.clock.set(at(10, 30, 0));
    const org = await h.org('Counts');
    const bad = await h.app.inject({ method: 'PATCH', url: '/v1/manage/settings', headers: bearer(org.keys.secret), payload: { duck_facts: 'true' } });
    expect(bad.statusCode).toBe(400);
    expect(bad.headers['ratelimit-remaining']).toBe('29');
    const next = await settings(org.keys.secret);
    expect(next.headers['ratelimit-remaining']).toBe('28');
  });

  it.skipIf(skip)('a refused (429) request does not consume budget', async () => {
    h.clock.set(at(10, 35, 10));
    const org = await h.org('Refused');
    const bucket = `query:org:${org.org_id}`;
    await spend(100, () => whoami(org.keys.secret));
    expect(await counter(bucket)).toBe(100);
    for (let i = 0; i < 25; i++) expectRateLimited(await whoami(i % 2 ? org.keys.mcp : org.keys.secret));
    // The counter still holds exactly the 100 allowed requests.
    expect(await counter(bucket)).toBe(100);

    // Next window: the whole budget again, counted from 1.
    h.clock.advance(50_000); // 10:36:00
    const first = await whoami(org.keys.secret);
    expect(first.statusCode).toBe(200);
    expect(first.headers['ratelimit-remaining']).toBe('99');
    expect(first.headers['ratelimit-reset']).toBe('60');
    await spend(99, () => whoami(org.keys.secret));
    expect(await counter(bucket)).toBe(100);
    expectRateLimited(await whoami(org.keys.secret), at(10, 37, 0));
    expect(await counter(bucket)).toBe(100);
  });

  it.skipIf(skip)('/v1/fun and /healthz are never limited, even with a credential attached', async () => {
    h.clock.set(at(10, 40, 0));
    const org = await h.org('Fun');
    for (let i = 0; i < 300; i++) {
      const fun = await h.app.inject({ method: 'GET', url: '/v1/fun', headers: i % 2 ? bearer(org.keys.secret) : {} });
      expect(fun.statusCode).toBe(200);
      expect(typeof fun.json().data.duck).toBe('string');
      expect(fun.headers['ratelimit-limit']).toBeUndefined();
      const health = await h.app.inject({ method: 'GET', url: '/healthz', headers: i % 2 ? bearer(org.keys.secret) : {} });
      expect(health.statusCode).toBe(200);
      expect(health.headers['ratelimit-limit']).toBeUndefined();
    }
    // None of them touched the org's budgets.
    expect(await counter(`query:org:${org.org_id}`)).toBe(0);
    expect(await counter(`manage:org:${org.org_id}`)).toBe(0);
    const query = await whoami(org.keys.secret);
    expect(query.headers['ratelimit-remaining']).toBe('99');
  });

  it.skipIf(skip)('the window resets at the next UTC minute boundary of the injected clock', async () => {
    h.clock.set(at(10, 45, 59, 500));
    const org = await h.org('Boundary');
    const last = await spend(100, () => whoami(org.keys.secret));
    expect(last.headers['ratelimit-reset']).toBe('1');
    const refused = await whoami(org.keys.secret);
    expectRateLimited(refused, at(10, 46, 0));
    expect(refused.json().error.details.reset_at).toBe('2026-11-02T10:46:00.000Z');
    expect(refused.headers['retry-after']).toBe('1');

    h.clock.advance(499); // 10:45:59.999, still the old window
    expectRateLimited(await whoami(org.keys.secret), at(10, 46, 0));

    h.clock.advance(101); // 10:46:00.100, a new window
    const fresh = await whoami(org.keys.secret);
    expect(fresh.statusCode).toBe(200);
    expect(fresh.headers['ratelimit-remaining']).toBe('99');
    expect(fresh.headers['ratelimit-reset']).toBe('60'); // 59.9 s, rounded up
  });

  it.skipIf(skip)('windows are aligned to the minute, not to the first request', async () => {
    h.clock.set(at(10, 50, 30));
    const org = await h.org('Aligned');
    expect((await whoami(org.keys.secret)).headers['ratelimit-remaining']).toBe('99');
    h.clock.advance(29_999); // 10:50:59.999
    const same = await whoami(org.keys.secret);
    expect(same.headers['ratelimit-remaining']).toBe('98');
    expect(same.headers['ratelimit-reset']).toBe('1');
    h.clock.advance(1); // 10:51:00.000
    const next = await whoami(org.keys.secret);
    expect(next.headers['ratelimit-remaining']).toBe('99');
    expect(next.headers['ratelimit-reset']).toBe('60');
  });

  it.skipIf(skip)('a harness configured with rateLimits { query: 5, manage: 3 } enforces them', async () => {
    const small = await createHarness(name, { limiter, config: { rateLimits: { ...DEFAULT_RATE_LIMITS, query: 5, manage: 3 } } });
    try {
      small.clock.set(at(11, 0, 0));
      const org = await small.org('Small');
      for (let i = 1; i <= 5; i++) {
        const res = await small.app.inject({ method: 'GET', url: '/v1/query/whoami', headers: bearer(org.keys.secret) });
        expect(res.statusCode).toBe(200);
        expect(res.headers['ratelimit-limit']).toBe('5');
        expect(res.headers['ratelimit-remaining']).toBe(String(5 - i));
      }
      const sixth = await small.app.inject({ method: 'GET', url: '/v1/query/whoami', headers: bearer(org.keys.secret) });
      expect(sixth.statusCode).toBe(429);
      expect(sixth.json().error.code).toBe('rate_limited');
      expect(Date.parse(sixth.json().error.details.reset_at)).toBe(at(11, 1, 0));
      for (let i = 0; i < 3; i++) {
        expect((await small.app.inject({ method: 'GET', url: '/v1/manage/settings', headers: bearer(org.keys.secret) })).statusCode).toBe(200);
      }
      const fourth = await small.app.inject({ method: 'GET', url: '/v1/manage/settings', headers: bearer(org.keys.secret) });
      expect(fourth.statusCode).toBe(429);
      expect(fourth.headers['ratelimit-limit']).toBe('3');
    } finally {
      await small.close();
    }
  });

  it.skipIf(skip)('the 11th login for the same email and IP within a minute is 429', async () => {
    h.clock.set(at(12, 0, 0));
    const org = await h.org('Login');
    const login = (email: string, password: string, remoteAddress = '127.0.0.1') =>
      h.app.inject({ method: 'POST', url: '/v1/auth/login', payload: { email, password }, remoteAddress });
    // After 5 failures the account's own lockout answers (test/account-lockout.test.ts); the
    // attempts it refuses still count for the email and IP.
    for (let i = 0; i < 10; i++) {
      const res = await login(org.email, `wrong-password-${i}`);
      expect(res.statusCode).toBe(i < 5 ? 401 : 429);
      expect(res.json().error.code).toBe(i < 5 ? 'invalid_credentials' : 'account_locked');
    }
    // Even the right password is refused now; the same email in other case counts as the same.
    expectRateLimited(await login(org.email, org.password), at(12, 1, 0));
    expectRateLimited(await login(org.email.toUpperCase(), org.password), at(12, 1, 0));
    // Another client IP for that email (once the account's one-second delay is over), and
    // another email from this IP, are not affected.
    h.clock.set(at(12, 0, 1));
    expect((await login(org.email, org.password, '10.9.8.7')).statusCode).toBe(200);
    const other = await h.org('LoginOther');
    expect((await login(other.email, other.password)).statusCode).toBe(200);
    // The next minute the limit is lifted.
    h.clock.set(at(12, 1, 0));
    const again = await login(org.email, org.password);
    expect(again.statusCode).toBe(200);
    expect(typeof again.json().data.token).toBe('string');
  });

  it.skipIf(skip)('failed authentications are limited per client IP: 30 a minute, then even a valid key is refused', async () => {
    h.clock.set(at(12, 10, 0));
    const org = await h.org('AuthFail');
    const ip = `10.${randomBytes(1)[0]}.${randomBytes(1)[0]}.7`;
    const send = (token: string, remoteAddress = ip) =>
      h.app.inject({ method: 'GET', url: '/v1/query/whoami', headers: bearer(token), remoteAddress });
    for (let i = 0; i < 30; i++) {
      const res = await send(`svc_sec_${'x'.repeat(40)}${i}`);
      expect(res.statusCode).toBe(401);
      expect(res.json().error.code).toBe('invalid_key');
    }
    expectRateLimited(await send(org.keys.secret), at(12, 11, 0));
    // Other clients are unaffected, and the org's budget was never touched by the refusals.
    expect((await send(org.keys.secret, '10.200.200.1')).statusCode).toBe(200);
    expect(await counter(`query:org:${org.org_id}`)).toBe(1);
    h.clock.set(at(12, 11, 0));
    expect((await send(org.keys.secret)).statusCode).toBe(200);
  });
}, { skip: noLimiter });

describe('rate limit configuration from the environment', () => {
  const base = { MALLARD_SECRET: 'rate-limit-test-secret-0123456789abcdef', DATABASE_URL: 'sqlite::memory:' };

  it('RATE_LIMIT_*_PER_MIN set the limits of each surface', () => {
    const config = loadConfig({
      ...base,
      RATE_LIMIT_QUERY_PER_MIN: '5', RATE_LIMIT_MANAGE_PER_MIN: '7', RATE_LIMIT_INGEST_PER_MIN: '9', RATE_LIMIT_GUIDE_PER_MIN: '11',
      RATE_LIMIT_MCP_PER_MIN: '13',
    });
    expect(config.rateLimits).toEqual({ query: 5, manage: 7, ingest: 9, guide: 11, mcp: 13 });
  });

  it('without overrides the spec table applies', () => {
    expect(loadConfig(base).rateLimits).toEqual({ query: 100, manage: 30, ingest: 10_000, guide: 200, mcp: 300 });
    expect(loadConfig({ ...base, RATE_LIMIT_QUERY_PER_MIN: '' }).rateLimits.query).toBe(100);
  });

  it('a bad value stops the config with an error naming the variable', () => {
    for (const value of ['0', 'abc', '-1', '1.5', '5 ']) {
      expect(() => loadConfig({ ...base, RATE_LIMIT_QUERY_PER_MIN: value }), value).toThrow(ConfigError);
      expect(() => loadConfig({ ...base, RATE_LIMIT_QUERY_PER_MIN: value }), value).toThrow(/RATE_LIMIT_QUERY_PER_MIN/);
    }
    expect(() => loadConfig({ ...base, RATE_LIMIT_MANAGE_PER_MIN: 'lots' })).toThrow(/RATE_LIMIT_MANAGE_PER_MIN/);
    expect(() => loadConfig({ ...base, RATE_LIMIT_MCP_PER_MIN: '0' })).toThrow(/RATE_LIMIT_MCP_PER_MIN/);
  });
});
