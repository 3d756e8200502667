// Pathological bodies on every route that takes one: JSON nested far deeper than the depth limit
// (a fuzz run found 20,000 levels answered 500: a recursive walk overflowed the stack), huge
// arrays of empty objects and very long keys. Each is a 400 in the envelope naming the field,
// on both body parsers (the app's JSON parser and ingest's JSON / text/plain / gzip one).
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { BODY_LIMIT } from '../src/app.ts';
import { MAX_JSON_DEPTH, nestedDeeperThan } from '../src/http/request-data.ts';
import { INGEST_BODY_LIMIT } from '../src/ingest/schemas.ts';
import { MCP_BODY_LIMIT } from '../src/mcp/routes.ts';
import { CLIP_MAX_DEPTH, CLIP_WIRE_LIMIT } from '../src/features/clips/schemas.ts';
import { ContractChecker } from './helpers/contract.ts';
import { operationsOf, type FuzzOperation } from './helpers/fuzzer.ts';
import { credentialFor, deepArrays, deepObjects, emptyObjects, fillPath, longKey } from './helpers/bad-requests.ts';
import { eachDialect, useHarness, type Org } from './helpers/harness.ts';

type Inject = Awaited<ReturnType<ReturnType<typeof useHarness>['app']['inject']>>;

describe('the depth scan', () => {
  // [JSON text, limit, deeper than the limit]: brackets in strings (escaped quotes and
  // backslashes included) are text, not nesting.
  it.each([
    ['[[1]]', 2, false], ['[[1]]', 1, true], ['{"a":{"b":[1]}}', 3, false], ['{"a":{"b":[1]}}', 2, true],
    ['["[[[[", "\\"[[[["]', 1, false], ['["\\\\", [[1]]]', 2, true], ['["\\\\", [[1]]]', 3, false],
    ['["a\\\\\\"[[[", 1]', 1, false], [`[${'"x",'.repeat(10)}[[[]]]]`, 3, true], ['{}', 0, true], ['1', 0, false],
  ] as const)('%s with limit %i: %s', (text, limit, deeper) => {
    expect(() => JSON.parse(text)).not.toThrow();
    expect(nestedDeeperThan(text, limit)).toBe(deeper);
  });
});

eachDialect('pathological input', ({ name, skip }) => {
  const h = useHarness(name, { raisedLimits: true });
  let org: Org;
  let bodyOperations: FuzzOperation[];

  beforeAll(async () => {
    org = await h.org('Deep');
    bodyOperations = operationsOf((await ContractChecker.of(h.app)).doc).filter((o) => o.op.requestBody);
  });

  // Ingest and MCP take bodies up to 1 MiB (MCP answers an argument over 64 KiB as a tool error); every other route 64 KiB.
  const bodyLimitOf = (o: FuzzOperation) => (o.path === '/v1/ingest' ? INGEST_BODY_LIMIT : o.path === '/v1/mcp' ? MCP_BODY_LIMIT : o.path === '/v1/ingest/clips' ? CLIP_WIRE_LIMIT : BODY_LIMIT);
  // Clip uploads take rrweb snapshots, which nest two levels per level of a page's DOM.
  const depthLimitOf = (o: FuzzOperation) => (o.path === '/v1/ingest/clips' ? CLIP_MAX_DEPTH : MAX_JSON_DEPTH);

  const send = (o: FuzzOperation, payload: string | Buffer, headers: Record<string, string> = {}) =>
    h.app.inject({
      method: o.method as 'POST', url: fillPath(o.path), payload,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...credentialFor(o, org).headers, ...headers },
    });

  function expectTooDeep(res: Inject, where: string, limit = MAX_JSON_DEPTH) {
    expect(res.statusCode, `${where}: ${res.body.slice(0, 300)}`).toBe(400);
    expect(res.json(), where).toEqual({
      data: null,
      error: { code: 'invalid_input', status: 400, message: expect.stringContaining(`${limit}`), details: { field: 'body', reason: `nested more than ${limit} levels deep` } },
    });
  }

  it.skipIf(skip)('finds the routes that take a body: manage, auth, MCP and ingest', () => {
    const paths = bodyOperations.map((o) => `${o.method} ${o.path}`);
    for (const route of ['POST /v1/auth/login', 'POST /v1/auth/set-password', 'POST /v1/mcp', 'POST /v1/ingest', 'POST /v1/manage/keys', 'PATCH /v1/manage/settings']) {
      expect(paths).toContain(route);
    }
  });

  it.skipIf(skip)('JSON nested 20,000 and 100,000 deep is 400 invalid_input on body on every route that takes one (413 when over its size limit)', async () => {
    for (const o of bodyOperations) {
      let refusedTooDeep = 0;
      for (const depth of [20_000, 100_000]) {
        for (const body of [deepArrays(depth), deepObjects(depth), `{"name":${deepArrays(depth)}}`]) {
          const res = await send(o, body);
          const where = `${o.method} ${o.path} at ${depth}`;
          // 100,000 levels take at least 200 KB: only ingest's and MCP's 1 MiB limits let them through.
          if (Buffer.byteLength(body) > bodyLimitOf(o)) {
            expect(res.statusCode, where).toBe(413);
            expect(res.json().error.code, where).toBe('payload_too_large');
          } else {
            expectTooDeep(res, where, depthLimitOf(o));
            refusedTooDeep++;
          }
        }
      }
      expect(refusedTooDeep, `${o.method} ${o.path}`).toBeGreaterThanOrEqual(o.path === '/v1/ingest' ? 6 : 2);
    }
  });

  it.skipIf(skip)('ingest refuses deep JSON the same way as text/plain and gzip-encoded', async () => {
    const ingest = bodyOperations.find((o) => o.path === '/v1/ingest')!;
    for (const depth of [MAX_JSON_DEPTH + 1, 20_000, 100_000]) {
      for (const body of [deepArrays(depth), `{"events":[{"type":"track","props":${deepObjects(depth)}}]}`]) {
        // A NUL in the text sends it through the reviver that replaces NULs: the same answer.
        for (const text of [body, body.replace('1', '"\\u0000"')]) {
          expectTooDeep(await send(ingest, text, { 'content-type': 'text/plain' }), `text/plain at ${depth}`);
          expectTooDeep(await send(ingest, gzipSync(text), { 'content-encoding': 'gzip' }), `gzip at ${depth}`);
          expectTooDeep(await send(ingest, gzipSync(text), { 'content-type': 'text/plain', 'content-encoding': 'gzip' }), `text/plain gzip at ${depth}`);
        }
      }
    }
  });

  it.skipIf(skip)('the limit itself passes the parsers: 64 levels reach the route, 65 do not', async () => {
    const createSite = bodyOperations.find((o) => o.method === 'POST' && o.path === '/v1/manage/site')!;
    // 64 levels: the route's own validation answers (name must be a string).
    const atLimit = await send(createSite, `{"name":${deepArrays(MAX_JSON_DEPTH - 1)},"url":"https://deep.example"}`);
    expect(atLimit.statusCode).toBe(400);
    expect(atLimit.json().error.details).toMatchObject({ field: 'name' });
    expectTooDeep(await send(createSite, `{"name":${deepArrays(MAX_JSON_DEPTH)},"url":"https://deep.example"}`), 'one level over');
    // Brackets inside strings are text, not nesting.
    const bracketsInText = await send(createSite, JSON.stringify({ name: '['.repeat(150), url: 'https://brackets.example' }));
    expect(bracketsInText.statusCode, bracketsInText.body).toBe(201);
  });

  it.skipIf(skip)('a huge array of empty objects or a very long key is a 400 naming the field, never a 500', async () => {
    for (const o of bodyOperations) {
      const limit = bodyLimitOf(o) - 64;
      for (const [label, body] of [['empty objects', emptyObjects(limit)], ['empty objects in a field', `{"events":${emptyObjects(limit - 16)}}`], ['long key', longKey(limit)]] as const) {
        const res = await send(o, body);
        const where = `${o.method} ${o.path} ${label}: ${res.statusCode} ${res.body.slice(0, 300)}`;
        expect(res.statusCode, where).toBeLessThan(500);
        if (res.statusCode === 400) {
          const { error } = res.json();
          expect(error.code, where).toMatch(/^(invalid_input|invalid_status|invalid_uuid|missing_site_id)$/);
          // A very long key is named in short: the answer never echoes 64 KiB back.
          if (error.details?.field !== undefined) expect(error.details.field.length, where).toBeLessThanOrEqual(200);
        }
        expect(res.body.length, where).toBeLessThan(4096);
      }
    }
  });

  it.skipIf(skip)('ingest: a batch of 300,000 empty events is refused whole, and an event with an over-long props key alone', async () => {
    const now = h.clock.now();
    const sid = 'd'.repeat(32);
    const ingest = bodyOperations.find((o) => o.path === '/v1/ingest')!;
    const header = `{"key":"${org.keys.publishable}","sid":"${sid}","ts":${now},"events":`;
    const many = await send(ingest, `${header}[${Array.from({ length: 300_000 }, () => '{}').join(',')}]}`);
    expect(many.statusCode, many.body.slice(0, 300)).toBe(400);
    expect(many.json().error).toMatchObject({ code: 'invalid_input', details: { field: 'events' } });
    const key = 'p'.repeat(500_000);
    const longKey = await send(ingest, JSON.stringify({ key: org.keys.publishable, sid, ts: now, events: [
      { type: 'track', ts: now, page: '/long', name: 'clicked', props: { [key]: 1 } },
      { type: 'pageview', ts: now, page: '/long' },
    ] }));
    expect(longKey.statusCode, longKey.body.slice(0, 300)).toBe(202);
    expect(longKey.json().data).toMatchObject({ accepted: 1, rejected: 1, rejections: [{ index: 0 }] });
    expect(longKey.body.length).toBeLessThan(4096);
  });
});
