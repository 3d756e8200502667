// The operation catalog (src/features/catalog.ts, domain/operation.ts): each operation is
// declared once and its faces are derived from it.
// - Every MCP tool calls an operation of the catalog, and no tool file declares a schema, an
//   access rule or a service call of its own.
// - Every operation with an `http` binding is served by the route derived from it (a route
//   registered by hand on its path would either clash or leave the operation unserved), and no
//   hand-written route reuses an operation's input schemas. What a binding adds to the document
//   (extra error codes, an exactly-one-of rule) reaches the document.
// - The runner refuses before running, alike for every face, and MCP lists a tool exactly to the
//   credentials the runner admits. It checks the site scope too: a site named in the input is
//   resolved before `run` (another org's 404, a sibling of a site-scoped key's site 403), and
//   read once in the call.
// - Resolve once: get_page over MCP reads the site and its sdk_configs once (the page check and
//   the page detail share the call's memo).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Type } from '@sinclair/typebox';
import Fastify, { type FastifySchema } from 'fastify';
import { describe, expect, it, vi } from 'vitest';
import { authenticate } from '../src/domain/authenticate.ts';
import { actorOf, operatorAuth, type AuthContext, type ServiceContext } from '../src/domain/context.ts';
import { admits, defineOperation, READ_ACCESS, runOperation, WRITE_ACCESS } from '../src/domain/operation.ts';
import { resolveSite } from '../src/domain/tenancy.ts';
import * as schemaParts from '../src/domain/schema-parts.ts';
import { CATALOG } from '../src/features/catalog.ts';
import type { App } from '../src/http/app-types.ts';
import { registerOpenApi } from '../src/http/openapi.ts';
import { operationRoute } from '../src/http/operation-route.ts';
import type { McpSession } from '../src/mcp/session.ts';
import { ALL_TOOLS, toolsFor } from '../src/mcp/tools/index.ts';
import { bearer, createHarness, eachDialect, useHarness } from './helpers/harness.ts';
import { SRC } from './helpers/import-graph.ts';
import { countingSelectsFrom } from './helpers/query-spy.ts';
import { cycle, freshStart, HOUR, MIN, sendVisits } from './helpers/traffic.ts';

// The routes, read from the route table of an app built for that purpose.
const ROUTES = await (async () => {
  const h = await createHarness('sqlite');
  try {
    return h.app.routeTable.rules();
  } finally {
    await h.close();
  }
})();

describe('the operation catalog', () => {
  it('names every operation once', () => {
    const names = CATALOG.map((op) => op.name);
    expect(new Set(names).size).toBe(names.length);
    expect(CATALOG.length).toBeGreaterThan(30);
  });

  it('makes every MCP tool from an operation of the catalog', () => {
    const missing = ALL_TOOLS.filter((t) => !CATALOG.includes(t.operation)).map((t) => t.name);
    expect(missing).toEqual([]);
  });

  it('lets no MCP tool file declare a schema, an access rule or a service call of its own', () => {
    const dir = join(SRC, 'mcp/tools');
    const own: string[] = [];
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
      const text = readFileSync(join(dir, file), 'utf8');
      for (const [what, pattern] of [
        ['an input schema', /^\s+input:/m], ['an output schema', /^\s+output:/m], ['a run', /^\s+run:/m], ['an access rule', /^\s+(access|write):/m],
        ['a TypeBox schema', /\bType\.[A-Z]/], ['a service call', /\(\{\s*ctx\b/],
      ] as const) {
        if (pattern.test(text)) own.push(`${file}: ${what}`);
      }
    }
    expect(own).toEqual([]);
  });

  it('serves every operation with an http binding by the route derived from it', () => {
    const unserved = CATALOG.filter((op) => op.http).filter((op) => {
      const route = ROUTES.find((r) => r.method === op.http!.method && r.url === `/v1${op.http!.path}`);
      return route?.operation !== op;
    }).map((op) => `${op.name} (${op.http!.method} /v1${op.http!.path})`);
    expect(unserved).toEqual([]);
  });

  it('lets no hand-written route reuse an operation\'s input schemas', () => {
    // Shared pieces (a site_id query string, a UUID path parameter) are not an operation's own.
    const shared = new Set<unknown>(Object.values(schemaParts));
    const parts = new Map<unknown, string>();
    for (const op of CATALOG) {
      for (const part of [op.input.params, op.input.query, op.input.body]) if (part && !shared.has(part)) parts.set(part, op.name);
    }
    const twice = ROUTES.filter((r) => r.operation === undefined).flatMap((r) => {
      const schema = (r.schema ?? {}) as FastifySchema;
      return [schema.params, schema.querystring, schema.body].filter((s) => parts.has(s)).map((s) => `${r.method} ${r.url} declares ${parts.get(s)}'s input`);
    });
    expect(twice).toEqual([]);
  });

  it('makes the CLI commands of catalog operations run them, not their services', () => {
    // A command in cli/ that runs a feature's operations (keys, privacy) imports none of that feature's services.
    const dir = join(SRC, 'cli');
    const own: string[] = [];
    const runsOperations = /from '\.\.\/features\/[\w-]+\/operations\.ts'/;
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
      const text = readFileSync(join(dir, file), 'utf8');
      if (!runsOperations.test(text)) continue;
      if (/from '\.\.\/features\/[\w-]+\/service\.ts'/.test(text)) own.push(`cli/${file} imports a service`);
      if (!text.includes('runOperation(')) own.push(`cli/${file} runs no operation`);
    }
    expect(own).toEqual([]);
    for (const file of ['keys.ts', 'privacy.ts']) expect(readFileSync(join(dir, file), 'utf8')).toMatch(runsOperations);
  });

  it('documents what an operation\'s binding adds: its extra error codes and its exactly-one-of rule', async () => {
    const op = defineOperation({
      name: 'test.exactly_one', summary: 'one of two', access: WRITE_ACCESS,
      http: { method: 'GET', path: '/manage/one-of', surface: 'manage', tags: ['test'], errors: ['conflict'], exactlyOneOf: ['a', 'b'] },
      input: { query: Type.Object({ a: Type.Optional(Type.String()), b: Type.Optional(Type.String()) }) }, output: Type.Object({}),
      run: async () => ({}),
    });
    const app = Fastify();
    await registerOpenApi(app);
    operationRoute(app as unknown as App, op);
    await app.ready();
    const doc = app.swagger() as { paths: Record<string, { get: { responses: Record<string, { description: string }>; description: string } }> };
    const get = doc.paths['/manage/one-of'].get;
    await app.close();
    expect(get.responses['409'].description).toMatch(/`conflict`/);
    expect(get.description).toContain('Give exactly one of `a` and `b`');
    // Without them in the binding, neither is documented.
    expect(ROUTES.find((r) => r.url === '/v1/manage/funnels' && r.method === 'POST')!.docs).toBeUndefined();
  });

  it('catches what it claims to: a hand-written route with an operation\'s schema is reported', () => {
    const op = CATALOG.find((o) => o.input.query && !Object.values(schemaParts).includes(o.input.query as never))!;
    const planted = [{ method: 'GET', url: '/v1/elsewhere', schema: { querystring: op.input.query }, operation: undefined }];
    const found = planted.filter((r) => r.operation === undefined && CATALOG.some((o) => o.input.query === r.schema.querystring));
    expect(found).toHaveLength(1);
  });
});

const auth = (over: Partial<AuthContext>): AuthContext => ({
  kind: 'key', org: { id: 'o', name: 'O', duckFacts: false }, site: null, keyType: 'secret', keyId: 'k', scopes: [], user: null, role: null,
  jti: null, tokenExpiresAt: null, mfaEnrolmentRequired: false, sessionId: null, ...over,
});

describe('the runner', () => {
  const run = vi.fn(async () => ({ ran: true }));
  const op = defineOperation({ name: 'test.write', summary: 'a write', access: WRITE_ACCESS, input: {}, output: {} as never, run });
  const ctx = (a: AuthContext) => ({ auth: a, now: 0, requestId: 'r', log: console }) as unknown as ServiceContext;

  it('refuses a caller the access rule does not admit before running, with the contract\'s code', async () => {
    await expect(runOperation(op, ctx(auth({ scopes: ['mcp:read'] })), {})).rejects.toMatchObject({ code: 'missing_scope', status: 403 });
    await expect(runOperation(op, ctx(auth({ kind: 'jwt', keyType: 'jwt', role: 'viewer' })), {})).rejects.toMatchObject({ code: 'insufficient_role' });
    await expect(runOperation(op, ctx(auth({ kind: 'jwt', keyType: 'jwt', role: 'owner', mfaEnrolmentRequired: true })), {})).rejects.toMatchObject({ code: 'mfa_enrolment_required' });
    expect(run).not.toHaveBeenCalled();
    await expect(runOperation(op, ctx(auth({ scopes: ['manage:write'] })), {})).resolves.toEqual({ ran: true });
    expect(run).toHaveBeenCalledTimes(1);
  });

  it('admits the operator at the terminal to every operation, as an owner of the org it names, audited as the system', async () => {
    const operator = operatorAuth({ id: 'o', name: 'O' });
    expect(CATALOG.filter((o) => !admits(operator, o.access)).map((o) => o.name)).toEqual([]);
    expect(operator).toMatchObject({ kind: 'operator', role: 'owner', site: null, user: null, keyId: null });
    expect(actorOf(operator)).toEqual({ type: 'system', id: null, label: 'cli' });
    // Not a user: a jwtOnly operation refuses a key, and admits the operator only because the check says so.
    const keysOnlyForUsers = CATALOG.find((o) => o.access.jwtOnly)!;
    expect(admits(auth({ scopes: ['manage:write'] }), keysOnlyForUsers.access)).toBe(false);
    await expect(runOperation(op, ctx(operator), {})).resolves.toEqual({ ran: true });
  });

  it('gives each call a memo of its own', async () => {
    const seen: unknown[] = [];
    const memoOp = defineOperation({ name: 'test.memo', summary: 'memo', access: {}, input: {}, output: {} as never, run: async (c) => { seen.push(c.memo); return null; } });
    const base = ctx(auth({}));
    await runOperation(memoOp, base, {});
    await runOperation(memoOp, base, {});
    expect(seen[0]).toBeDefined();
    expect(seen[0]).not.toBe(seen[1]);
    expect(base.memo).toBeUndefined();
  });

  it('lists to MCP exactly the tools whose operation admits the credential (a read-only OAuth grant gets no write tool)', () => {
    for (const credential of [
      auth({ scopes: ['mcp:read'] }), auth({ scopes: ['mcp:read', 'manage:write'] }), auth({ keyType: 'oauth', scopes: ['mcp:read'], role: 'owner', user: { id: 'u', email: 'e' } }),
      auth({ kind: 'jwt', keyType: 'jwt', role: 'viewer' }), auth({ kind: 'jwt', keyType: 'jwt', role: 'member' }),
    ]) {
      expect(toolsFor(credential).map((t) => t.name)).toEqual(ALL_TOOLS.filter((t) => admits(credential, t.operation.access)).map((t) => t.name));
    }
    expect(toolsFor(auth({ keyType: 'oauth', scopes: ['mcp:read'] })).some((t) => t.write)).toBe(false);
    expect(toolsFor(auth({ scopes: ['mcp:read', 'manage:write'] })).some((t) => t.write)).toBe(true);
  });
});

eachDialect('resolve once', (dialect) => {
  const h = useHarness(dialect.name);

  it('get_page over MCP reads the site and its sdk_configs once', async () => {
    const { org, start: S, prefix } = await freshStart(h);
    h.clock.set(S + HOUR + 10 * MIN);
    await sendVisits(h, org, prefix, [{ n: 1, page: '/pricing', at: S + HOUR, signals: [{ type: 'rage_click', element: 'button.buy' }] }]);
    await cycle(h, org.site_id, S + HOUR + 15 * MIN);
    // An org-scoped key names the site, so the site is read from the store (a site-scoped key's own site is not).
    const { key } = await h.key(org, { scopes: ['mcp:read'] });
    const who = await authenticate(h.store, h.secrets, key, h.clock.now());
    const configs = countingSelectsFrom(h.store.db, 'sdk_configs');
    const sites = countingSelectsFrom(configs.db, 'sites');
    const session: McpSession = {
      ctx: { auth: who, db: sites.db, now: h.clock.now(), requestId: 'resolve-once', log: { info() {}, warn() {}, error() {} }, parts: h.app.services },
      publicUrl: 'http://127.0.0.1',
    };
    const tool = ALL_TOOLS.find((t) => t.name === 'get_page')!;
    const result = await tool.call(session, { site_id: org.site_id, page: '/pricing' });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    expect((result.structuredContent as { page: string }).page).toBe('/pricing');
    expect(configs.counter.selects).toBe(1);
    expect(sites.counter.selects).toBe(1);
    // A second call reads again: the memo is the call's, not the session's.
    await tool.call(session, { site_id: org.site_id, page: '/pricing' });
    expect(configs.counter.selects).toBe(2);
  });
});

eachDialect('a route reads the parts its operation declares', (dialect) => {
  const h = useHarness(dialect.name);

  it('passes no undeclared query string to run: create takes its site from the body, a change only the body\'s fields', async () => {
    const org = await h.org('Parts');
    const { key } = await h.key(org, { scopes: ['manage:write'] });
    const call = (method: 'POST' | 'PATCH', url: string, payload: object) => h.app.inject({ method, url, headers: bearer(key), payload });
    const rule = { name: 'Spikes', trigger_type: 'spike', threshold: 20 };
    // Creating an alert rule declares a body only: an org-scoped key names the site there, not in the query string.
    const fromQuery = await call('POST', `/v1/manage/alert-rules?site_id=${org.site_id}`, rule);
    expect(fromQuery.statusCode, fromQuery.body).toBe(400);
    expect(fromQuery.json().error.code).toBe('missing_site_id');
    const created = await call('POST', '/v1/manage/alert-rules', { ...rule, site_id: org.site_id });
    expect(created.statusCode, created.body).toBe(201);
    // A field in the query string of a change is neither checked nor written.
    const changed = await call('PATCH', `/v1/manage/alert-rules/${created.json().data.id}?enabled=false&threshold=abc`, { name: 'Renamed' });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json().data).toMatchObject({ name: 'Renamed', enabled: true, threshold: 20 });
  });
});

eachDialect('the runner\'s site scope', (dialect) => {
  const h = useHarness(dialect.name);

  it('refuses a site outside the credential\'s scope before run, for any operation, and reads the site once per call', async () => {
    const org = await h.org('Scope');
    const other = await h.org('Elsewhere');
    const created = await h.app.inject({ method: 'POST', url: '/v1/manage/site', headers: bearer(org.jwt), payload: { name: 'Sibling', url: 'https://sibling.example' } });
    expect(created.statusCode).toBe(201);
    const siblingId = created.json().data.id as string;
    const { key } = await h.key(org, { scopes: ['query:read'], siteId: org.site_id });
    const who = await authenticate(h.store, h.secrets, key, h.clock.now());
    expect(who.site?.id).toBe(org.site_id);

    // A fake operation: its run records each call, then resolves its site as every service does.
    const calls: (string | undefined)[] = [];
    const op = defineOperation({
      name: 'test.site_read', summary: 'reads a site', access: READ_ACCESS,
      input: { query: Type.Object({ site_id: Type.Optional(Type.String()) }) }, output: Type.Object({}),
      run: async (c, input) => {
        calls.push(input.site_id);
        await resolveSite(c, input.site_id);
        return {};
      },
    });
    const sites = countingSelectsFrom(h.store.db, 'sites');
    const ctx = { auth: who, db: sites.db, now: h.clock.now(), requestId: 'site-scope', log: { info() {}, warn() {}, error() {} } } as ServiceContext;

    await expect(runOperation(op, ctx, { site_id: siblingId })).rejects.toMatchObject({ code: 'forbidden', status: 403 });
    await expect(runOperation(op, ctx, { site_id: other.site_id })).rejects.toMatchObject({ code: 'not_found', status: 404 });
    expect(calls).toEqual([]);

    sites.counter.selects = 0;
    await runOperation(op, ctx, { site_id: org.site_id });
    expect(calls).toEqual([org.site_id]);
    // The runner's check and the service's resolveSite: one read of the site.
    expect(sites.counter.selects).toBe(1);
    // The next call reads afresh; without a site_id the key's own site needs no read.
    await runOperation(op, ctx, { site_id: org.site_id });
    await runOperation(op, ctx, {});
    expect(calls).toEqual([org.site_id, org.site_id, undefined]);
    expect(sites.counter.selects).toBe(2);
  });
});
