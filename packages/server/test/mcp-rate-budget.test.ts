// MCP's own rate budget (docs/mcp.md, "Rate budget"): tool calls, resource reads and prompt
// fetches count per credential against RATE_LIMIT_MCP_PER_MIN; the handshake, notifications,
// ping and the listings are free; over the budget a tool call is a tool error (isError) with
// code rate_limited and retry_after, never an HTTP 429; the query surface's per-org limit is
// untouched by MCP and still guards the REST routes. With the memory and the Redis limiter, on
// both dialects, on the injected clock.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DEFAULT_RATE_LIMITS } from '../src/config.ts';
import { MINUTE_MS as MINUTE } from '../src/domain/time.ts';
import { MemoryRateLimiter, RedisRateLimiter, type RateLimiter } from '../src/store/rate-limit.ts';
import { bearer, createHarness, eachDialect, type Harness } from './helpers/harness.ts';
import { redisAvailable, TEST_REDIS_URL } from './helpers/services.ts';

const MCP_LIMIT = 3;
const QUERY_LIMIT = 2;
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const at = (hh: number, mm: number, ss = 0) => Date.UTC(2026, 10, 2, hh, mm, ss);

interface RpcAnswer { jsonrpc: '2.0'; id: number; result?: Record<string, any>; error?: { code: number; message: string; data?: Record<string, any> } }

const LIMITERS = [
  { kind: 'memory', skip: false },
  { kind: 'redis', skip: !redisAvailable },
] as const;

for (const { kind, skip: noLimiter } of LIMITERS) eachDialect(`MCP rate budget with the ${kind} limiter`, ({ name }) => {
  let limiter: RateLimiter;
  let h: Harness;
  let redis: Redis | null = null;
  const prefix = `mallard:test:${randomBytes(8).toString('hex')}:`;

  // A JSON-RPC body is not the API's envelope, so this suite's harness skips the contract check (as the other MCP suites do).
  beforeAll(async () => {
    if (kind === 'redis') {
      limiter = new RedisRateLimiter(new Redis(TEST_REDIS_URL), prefix);
      redis = new Redis(TEST_REDIS_URL);
    } else {
      limiter = new MemoryRateLimiter();
    }
    h = await createHarness(name, { limiter, config: { rateLimits: { ...DEFAULT_RATE_LIMITS, query: QUERY_LIMIT, mcp: MCP_LIMIT } } });
  });
  afterAll(async () => {
    await h?.close();
    if (redis) {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    }
    await limiter?.close();
  });

  let id = 0;
  async function rpc(token: string, method: string, params?: Record<string, unknown>): Promise<RpcAnswer> {
    const res = await h.app.inject({ method: 'POST', url: '/v1/mcp', headers: { ...MCP_HEADERS, ...bearer(token) }, payload: { jsonrpc: '2.0', id: ++id, method, ...(params ? { params } : {}) } });
    expect(res.statusCode, res.body).toBe(200);
    // The endpoint counts its own calls: no query-surface headers.
    expect(res.headers['ratelimit-limit']).toBeUndefined();
    return res.json();
  }
  const notify = (token: string, method: string) =>
    h.app.inject({ method: 'POST', url: '/v1/mcp', headers: { ...MCP_HEADERS, ...bearer(token) }, payload: { jsonrpc: '2.0', method } });
  const callTool = (token: string, tool = 'whoami') => rpc(token, 'tools/call', { name: tool, arguments: {} });
  const handshake = async (token: string) => {
    const init = await rpc(token, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'budget-test', version: '1' } });
    expect(init.result?.serverInfo.name).toBe('mallard');
    expect((await notify(token, 'notifications/initialized')).statusCode).toBe(202);
  };
  const count = async (bucket: string) => {
    const now = h.clock.now();
    const peeked = await h.limiter.peek(bucket, MINUTE, now);
    if (redis) expect(Number(await redis.get(`${prefix}${bucket}:${Math.floor(now / MINUTE) * MINUTE}`) ?? 0)).toBe(peeked);
    return peeked;
  };

  it('handshakes, notifications, ping and the listings are free; tool calls count per credential', async () => {
    h.clock.set(at(10, 0, 0));
    const org = await h.org('Free');
    const key = await h.key(org, { type: 'mcp', siteId: org.site_id });
    // Far more free messages than either budget holds.
    for (let round = 0; round < 3; round++) {
      await handshake(key.key);
      for (const method of ['ping', 'tools/list', 'resources/list', 'resources/templates/list', 'prompts/list']) {
        const answer = await rpc(key.key, method);
        expect(answer.error, `${method}: ${JSON.stringify(answer.error)}`).toBeUndefined();
      }
    }
    expect(await count(`mcp:key:${key.id}`)).toBe(0);
    expect(await count(`query:org:${org.org_id}`)).toBe(0);
    for (let i = 1; i <= MCP_LIMIT; i++) {
      const answer = await callTool(key.key);
      expect(answer.result?.isError, JSON.stringify(answer.result)).toBeFalsy();
      expect(await count(`mcp:key:${key.id}`)).toBe(i);
    }
    // Still nothing spent of the org's query budget, which the REST routes keep using.
    expect(await count(`query:org:${org.org_id}`)).toBe(0);
  });

  it('over the budget a tool call is a tool error rate_limited with retry_after; refused calls do not count; the next window opens it again', async () => {
    h.clock.set(at(11, 0, 20));
    const org = await h.org('Over');
    const key = await h.key(org, { type: 'mcp', siteId: org.site_id });
    for (let i = 0; i < MCP_LIMIT; i++) expect((await callTool(key.key)).result?.isError).toBeFalsy();
    h.clock.set(at(11, 0, 45));
    for (let i = 0; i < 2; i++) {
      const refused = (await callTool(key.key, 'get_scores')).result!;
      expect(refused.isError).toBe(true);
      const error = refused._meta['mallard/error'];
      expect(error).toEqual({ code: 'rate_limited', status: 429, retry_after: 15, details: { reset_at: new Date(at(11, 1, 0)).toISOString(), retry_after: 15 } });
      expect(refused.content[0].text).toBe(`rate_limited (429): Rate limit exceeded: ${MCP_LIMIT} MCP calls a minute for this credential; retry after 15 seconds`);
      expect(refused.structuredContent).toBeUndefined();
    }
    expect(await count(`mcp:key:${key.id}`)).toBe(MCP_LIMIT);
    // Resource reads and prompt fetches read data too: a JSON-RPC error with the same code.
    const resource = await rpc(key.key, 'resources/read', { uri: 'mallard://context' });
    expect(resource.error?.data).toMatchObject({ code: 'rate_limited', details: { retry_after: 15 } });
    const prompt = await rpc(key.key, 'prompts/get', { name: 'triage_open_issues', arguments: {} });
    expect(prompt.error?.data).toMatchObject({ code: 'rate_limited', details: { retry_after: 15 } });
    // The free messages still answer.
    expect((await rpc(key.key, 'ping')).result).toEqual({});
    expect((await rpc(key.key, 'tools/list')).result?.tools.length).toBeGreaterThan(0);
    h.clock.set(at(11, 1, 0));
    expect((await callTool(key.key)).result?.isError).toBeFalsy();
    expect((await rpc(key.key, 'resources/read', { uri: 'mallard://context' })).error).toBeUndefined();
  });

  it('each credential has its own budget: another key and a signed-in person of the same org are not refused', async () => {
    h.clock.set(at(12, 0, 0));
    const org = await h.org('Apart');
    const first = await h.key(org, { type: 'mcp', siteId: org.site_id });
    const second = await h.key(org, { type: 'mcp', siteId: org.site_id });
    for (let i = 0; i < MCP_LIMIT; i++) await callTool(first.key);
    expect((await callTool(first.key)).result?.isError).toBe(true);
    expect((await callTool(second.key)).result?.isError).toBeFalsy();
    for (let i = 0; i < MCP_LIMIT; i++) expect((await callTool(org.jwt)).result?.isError).toBeFalsy();
    expect(await count(`mcp:user:${org.user_id}`)).toBe(MCP_LIMIT);
    expect((await callTool(org.jwt)).result?._meta['mallard/error'].code).toBe('rate_limited');
  });

  it('the query surface keeps its own per-org limit for the REST routes, and MCP tool calls go on past it', async () => {
    h.clock.set(at(13, 0, 0));
    const org = await h.org('Rest');
    const key = await h.key(org, { type: 'mcp', siteId: org.site_id });
    const rest = () => h.app.inject({ method: 'GET', url: '/v1/query/whoami', headers: bearer(key.key) });
    for (let i = 0; i < QUERY_LIMIT; i++) expect((await rest()).statusCode).toBe(200);
    const refused = await rest();
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error.code).toBe('rate_limited');
    for (let i = 0; i < MCP_LIMIT; i++) expect((await callTool(key.key)).result?.isError).toBeFalsy();
    expect(await count(`query:org:${org.org_id}`)).toBe(QUERY_LIMIT);
  });
}, { skip: noLimiter });
