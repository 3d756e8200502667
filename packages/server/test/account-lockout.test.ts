// Lockout per account: after 5 failed logins each further attempt waits a doubling delay
// (1 s, 2 s, 4 s ... at most a minute), answered 429 account_locked with reset_at and never by
// sleeping; 20 failures in the hour lock the account for an hour; the right password is refused
// meanwhile; an unknown email is answered exactly as a known one; an admin lifts a lockout
// (audited); failed logins count in the per-address lockout too. With the in-memory limiter and
// with Redis (shared by every process), on both dialects.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { HOUR_MS, MINUTE_MS, SECOND_MS } from '../src/domain/time.ts';
import { MemoryRateLimiter, RedisRateLimiter, type RateLimiter } from '../src/store/rate-limit.ts';
import { auditRows, bearer, eachDialect, useHarness } from './helpers/harness.ts';
import { redisAvailable, TEST_REDIS_URL } from './helpers/services.ts';

type Reply = { statusCode: number; headers: Record<string, unknown>; json(): { data: unknown; error: { code: string; details?: { reset_at?: string } } | null } };

for (const { kind, noLimiter } of [{ kind: 'memory', noLimiter: false }, { kind: 'redis', noLimiter: !redisAvailable }]) eachDialect(`account lockout with the ${kind} limiter`, ({ name, skip }) => {
  let limiter: RateLimiter;
  let redis: Redis | null = null;
  const prefix = `mallard:test:${randomBytes(8).toString('hex')}:`;
  beforeAll(() => {
    limiter = kind === 'redis' ? new RedisRateLimiter(new Redis(TEST_REDIS_URL), prefix) : new MemoryRateLimiter();
  });
  afterAll(async () => {
    if (kind === 'redis') {
      redis = new Redis(TEST_REDIS_URL);
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    }
    await limiter?.close();
  });
  const h = useHarness(name, () => ({ limiter }));

  // Every test starts on a new hour (the account's failures are counted per clock hour) and its own client address.
  let hour = 0;
  let ip = '';
  const start = () => {
    h.clock.set(Date.UTC(2026, 10, 3, hour++, 0, 0));
    ip = `10.${randomBytes(1)[0]}.${randomBytes(1)[0]}.${randomBytes(1)[0]}`;
  };
  const login = (email: string, password: string, remoteAddress = ip) =>
    h.app.inject({ method: 'POST', url: '/v1/auth/login', payload: { email, password }, remoteAddress }) as unknown as Promise<Reply>;

  function expectLocked(res: Reply, until: number) {
    expect(res.statusCode).toBe(429);
    const body = res.json();
    expect(body.data).toBeNull();
    expect(body.error).toMatchObject({ code: 'account_locked', details: { reset_at: new Date(until).toISOString() } });
    expect(res.headers['retry-after']).toBe(String(Math.max(1, Math.ceil((until - h.clock.now()) / 1000))));
  }
  async function expectBad(res: Reply) {
    expect(res.statusCode).toBe(401);
    expect(res.json().error?.code).toBe('invalid_credentials');
  }
  /** Fails `n` times, each once the previous delay has passed (as the rule says it lasts); returns when the last hold ends. */
  async function fail(email: string, n: number): Promise<number | null> {
    let until: number | null = null;
    for (let k = 1; k <= n; k++) {
      if (until !== null) h.clock.set(until);
      await expectBad(await login(email, `wrong-${k}`));
      until = k < 5 ? null : h.clock.now() + (k >= 20 ? HOUR_MS : Math.min(MINUTE_MS, SECOND_MS * 2 ** (k - 5)));
    }
    return until;
  }

  it.skipIf(skip)('after 5 failures each attempt waits 1 s, 2 s, 4 s ...: refused with account_locked and reset_at, even with the right password', async () => {
    start();
    const org = await h.org('Delay');
    for (let i = 0; i < 4; i++) await expectBad(await login(org.email, `wrong-${i}`));
    await expectBad(await login(org.email, 'wrong-4'));
    const t = h.clock.now();
    expectLocked(await login(org.email, org.password), t + SECOND_MS);
    // The same from another address (which asks below, clear of this one's login limit): the lockout is the account's.
    expectLocked(await login(org.email, org.password, '192.0.2.200'), t + SECOND_MS);
    h.clock.set(t + SECOND_MS);
    await expectBad(await login(org.email, 'wrong-5'));
    expectLocked(await login(org.email, org.password, '192.0.2.200'), t + 3 * SECOND_MS);
    h.clock.set(t + 3 * SECOND_MS);
    await expectBad(await login(org.email, 'wrong-6'));
    expectLocked(await login(org.email, org.password, '192.0.2.200'), t + 7 * SECOND_MS);
    // Once the delay has passed the right password signs in, and the failures are forgotten.
    h.clock.set(t + 7 * SECOND_MS);
    expect((await login(org.email, org.password)).statusCode).toBe(200);
    // (A new minute, clear of the per-email-and-address login limit of 10 a minute.)
    h.clock.advance(MINUTE_MS);
    for (let i = 0; i < 4; i++) await expectBad(await login(org.email, `again-${i}`));
    expect((await login(org.email, org.password)).statusCode).toBe(200);
  });

  it.skipIf(skip)('an unknown email gets exactly the answers a known one gets, and nothing is audited for it', async () => {
    start();
    const org = await h.org('Unknown');
    const known = org.email;
    const unknown = `nobody-${randomBytes(4).toString('hex')}@example.com`;
    const answers = async (email: string) => {
      const seen: string[] = [];
      for (let i = 0; i < 7; i++) {
        const res = await login(email, `wrong-${i}`);
        const body = res.json();
        seen.push(`${res.statusCode} ${body.error?.code} ${body.error?.details?.reset_at ?? ''}`);
      }
      return seen;
    };
    const before = await h.store.db.selectFrom('audit_log').select('id').execute();
    const knownAnswers = await answers(known);
    const failedRows = (await auditRows(h.store, org.org_id, 'auth.login_failed')).length;
    const unknownAnswers = await answers(unknown);
    expect(unknownAnswers).toEqual(knownAnswers);
    expect(knownAnswers.slice(5)).toEqual(Array(2).fill(`429 account_locked ${new Date(h.clock.now() + SECOND_MS).toISOString()}`));
    // Only the known user's five failures were audited.
    expect(failedRows).toBe(5);
    expect((await h.store.db.selectFrom('audit_log').select('id').execute()).length).toBe(before.length + 5);
  });

  it.skipIf(skip)('20 failures in the hour lock the account for an hour (audited); time lifts the lock', async () => {
    start();
    const org = await h.org('Lock');
    await fail(org.email, 20);
    const lockedAt = h.clock.now();
    expectLocked(await login(org.email, org.password), lockedAt + HOUR_MS);
    const locked = await auditRows(h.store, org.org_id, 'auth.account_locked');
    expect(locked).toHaveLength(1);
    expect(JSON.parse(locked[0].details!)).toEqual({ email: org.email, until: new Date(lockedAt + HOUR_MS).toISOString() });
    h.clock.set(lockedAt + HOUR_MS - 1);
    expectLocked(await login(org.email, org.password), lockedAt + HOUR_MS);
    h.clock.set(lockedAt + HOUR_MS);
    expect((await login(org.email, org.password)).statusCode).toBe(200);
  });

  it.skipIf(skip)('an admin unlocks a locked member at once (audited); a member cannot, another org\'s member is 404', async () => {
    start();
    const org = await h.org('Unlock');
    const member = await h.user(org, 'member');
    await fail(member.email, 20);
    expectLocked(await login(member.email, member.password), h.clock.now() + HOUR_MS);
    const unlock = (jwt: string, id = member.membershipId) => h.app.inject({ method: 'POST', url: `/v1/manage/members/${id}/unlock`, headers: bearer(jwt) });

    const byMember = await unlock(member.jwt);
    expect(byMember.statusCode).toBe(403);
    expect(byMember.json().error.code).toBe('insufficient_role');
    const other = await h.org('Other');
    expect((await unlock(other.jwt)).statusCode).toBe(404);
    expectLocked(await login(member.email, member.password), h.clock.now() + HOUR_MS);

    const res = await unlock(org.jwt);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual({ id: member.membershipId, user_id: member.userId, unlocked: true });
    const rows = await auditRows(h.store, org.org_id, 'member.unlocked');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ actor_type: 'user', actor_id: org.user_id, target_id: member.membershipId });
    expect((await login(member.email, member.password)).statusCode).toBe(200);
  });

  it.skipIf(skip)('failed logins count in the per-address lockout: after 30 a minute even a valid key from that address is refused', async () => {
    start();
    const org = await h.org('PerAddress');
    // Thirty emails, so neither the per-account delay nor the per-email limit is reached.
    for (let i = 0; i < 30; i++) await expectBad(await login(`guess-${i}-${randomBytes(3).toString('hex')}@example.com`, 'password-guess'));
    const whoami = await h.app.inject({ method: 'GET', url: '/v1/query/whoami', headers: bearer(org.keys.secret), remoteAddress: ip });
    expect(whoami.statusCode).toBe(429);
    expect(whoami.json().error.code).toBe('rate_limited');
    const signIn = await login(org.email, org.password);
    expect(signIn.statusCode).toBe(429);
    expect(signIn.json().error?.code).toBe('rate_limited');
    // Another address is unaffected; the next minute this one is too.
    expect((await login(org.email, org.password, '192.0.2.201')).statusCode).toBe(200);
    h.clock.advance(MINUTE_MS);
    expect((await login(org.email, org.password)).statusCode).toBe(200);
  });
}, { skip: noLimiter });
