// The OpenAPI document and the rendered reference: the document validates as OpenAPI 3.1
// (a maintained validator), lists every registered route with its method, and describes
// security and errors; /docs is HTML whose assets all come from this server.
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { ERROR_STATUS } from '../src/domain/errors.ts';
import { ALERT_SEVERITIES, ALERT_STATUSES, DUCK_STATES, ISSUE_STATUSES, SEVERITIES, TRENDS } from '../src/domain/statuses.ts';
import { bearer, useHarness, type Org } from './helpers/harness.ts';

type Operation = {
  operationId?: string;
  tags?: string[];
  parameters?: { name: string; in: string; required?: boolean }[];
  requestBody?: { content: Record<string, unknown> };
  security?: Record<string, string[]>[];
  responses: Record<string, { description?: string; content?: Record<string, { schema?: unknown }>; $ref?: string }>;
};
type Doc = {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, { type: string; scheme?: string }>; schemas: Record<string, any>; examples: Record<string, any> };
};

/** Fastify's `/a/:id` as OpenAPI's `/a/{id}`. */
const toOpenApiPath = (url: string) => url.replace(/:([A-Za-z_]+)/g, '{$1}');

/** Swagger UI's own files (assets, its copy of the document) are served but not API operations. */
const isUiAsset = (url: string) => url.startsWith('/docs/');

describe('OpenAPI document', () => {
  const h = useHarness('sqlite');
  let doc: Doc;
  let org: Org;

  beforeAll(async () => {
    org = await h.org('Docs');
    const res = await h.app.inject({ method: 'GET', url: '/v1/openapi.json' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    doc = res.json();
  });

  it('validates as OpenAPI 3.1', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    expect(doc.openapi).toBe('3.1.0');
  });

  it('lists every registered route with its method, and nothing that is not one', () => {
    const routes = h.app.routeTable.list().filter((r) => !isUiAsset(r.url));
    expect(routes.length).toBeGreaterThan(50);
    const missing: string[] = [];
    const expected = new Set<string>();
    for (const { url, methods } of routes) {
      for (const method of methods) {
        // Fastify adds HEAD to every GET by itself; it answers like the GET.
        if (method === 'HEAD') continue;
        const key = `${method} ${toOpenApiPath(url)}`;
        expected.add(key);
        if (!doc.paths[toOpenApiPath(url)]?.[method.toLowerCase()]) missing.push(key);
      }
    }
    expect(missing).toEqual([]);
    const documented = Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`));
    expect(documented.filter((k) => !expected.has(k))).toEqual([]);
    for (const key of ['GET /v1/openapi.json', 'GET /docs', 'POST /v1/ingest', 'GET /v1/query/scores', 'PATCH /v1/manage/issues/{issue_id}', 'GET /healthz', 'GET /metrics']) {
      expect(expected.has(key), key).toBe(true);
    }
  });

  it('gives every operation a unique id, a success response, security and the error envelope', () => {
    const ids = new Set<string>();
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const where = `${method.toUpperCase()} ${path}`;
        expect(op.operationId, where).toBeTruthy();
        expect(ids.has(op.operationId!), `duplicate operationId at ${where}`).toBe(false);
        ids.add(op.operationId!);
        expect(op.tags?.length, where).toBeGreaterThan(0);
        // A 2xx, or for a browser navigation (the SSO sign-in routes) its one redirect, never both.
        const success = Object.keys(op.responses).filter((s) => /^2\d\d$/.test(s) || s === '302');
        expect(success, where).toHaveLength(1);
        const ok = op.responses[success[0]];
        expect(ok.description, where).not.toBe('Default Response');
        if (success[0] !== '204' && success[0] !== '302') expect(Object.keys(ok.content ?? {}), where).not.toHaveLength(0);
        expect(Array.isArray(op.security), where).toBe(true);
        // Exact: only the statuses the operation can answer, no catch-all.
        expect(op.responses.default, where).toBeUndefined();
        for (const status of ['408', '431', '500', '503']) expect(op.responses[status], `${where} ${status}`).toBeDefined();
        // A parameter with a default may be left out; a path id is a UUID.
        for (const p of op.parameters ?? []) {
          const schema = (p as { schema?: { default?: unknown; format?: string } }).schema;
          if (p.in === 'query' && schema && 'default' in schema) expect(p.required ?? false, `${where} ?${p.name}`).toBe(false);
          if (p.in === 'path' && (p.name === 'id' || p.name.endsWith('_id'))) expect(schema?.format, `${where} {${p.name}}`).toBe('uuid');
        }
        // Rate-limited routes declare the headers on every answer.
        if (path.startsWith('/v1/query/') || path.startsWith('/v1/manage/')) {
          for (const response of Object.values(op.responses) as { headers?: Record<string, unknown> }[]) {
            expect(Object.keys(response.headers ?? {}), where).toEqual(expect.arrayContaining(['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset']));
          }
        }
        // Path parameters are described by the route schema.
        for (const name of [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1])) {
          expect(op.parameters?.some((p) => p.in === 'path' && p.name === name && p.required), `${where} {${name}}`).toBe(true);
        }
      }
    }
  });

  it('declares the key types and the user token as security schemes, per route', () => {
    const schemes = doc.components.securitySchemes;
    expect(Object.keys(schemes).sort()).toEqual(['mcpKey', 'mcpOAuth', 'publishableKey', 'publishableKeyQuery', 'secretKey', 'sessionCookie', 'userToken']);
    // The MCP endpoint's OAuth tokens: the code flow of Mallard's own authorization server.
    expect(schemes.mcpOAuth).toMatchObject({ type: 'oauth2', flows: { authorizationCode: { authorizationUrl: '/oauth/authorize', tokenUrl: '/oauth/token', scopes: { mcp: expect.any(String) } } } });
    for (const [name, scheme] of Object.entries(schemes)) {
      if (name === 'mcpOAuth') continue;
      // The SDK config route takes its publishable key as ?key=, the dashboard its session as a
      // cookie; every other credential is a bearer header.
      const expected = name === 'publishableKeyQuery' ? { type: 'apiKey', in: 'query', name: 'key' }
        : name === 'sessionCookie' ? { type: 'apiKey', in: 'cookie', name: 'mallard_session' } : { type: 'http', scheme: 'bearer' };
      expect(scheme).toMatchObject(expected);
    }
    const security = (method: string, path: string) => doc.paths[path][method].security;
    expect(security('get', '/v1/query/scores')).toEqual([{ secretKey: ['query:read', 'mcp:read'] }, { mcpKey: ['mcp:read'] }, { userToken: ['viewer'] }, { sessionCookie: ['viewer'] }]);
    expect(security('post', '/v1/manage/keys')).toEqual([{ userToken: ['admin'] }, { sessionCookie: ['admin'] }]);
    expect(security('post', '/v1/ingest')).toEqual([{ secretKey: ['ingest:write'] }, { publishableKey: ['ingest:write'] }]);
    expect(security('get', '/v1/fun')).toEqual([]);
    expect(security('post', '/v1/auth/login')).toEqual([]);
    expect(security('get', '/v1/openapi.json')).toEqual([]);
    expect(security('get', '/v1/sdk-config')).toEqual([{ publishableKeyQuery: [] }]);
    expect(security('post', '/v1/mcp')).toEqual([{ secretKey: ['query:read', 'mcp:read'] }, { mcpKey: ['mcp:read'] }, { userToken: ['viewer'] }, { sessionCookie: ['viewer'] }, { mcpOAuth: ['mcp'] }]);
  });

  it('describes parameters, bodies and the error codes each route can answer', () => {
    const issues = doc.paths['/v1/query/issues'].get;
    expect(issues.parameters!.map((p) => p.name).sort()).toEqual(['assigned_to', 'attention', 'first_seen_from', 'first_seen_to', 'last_seen_from', 'last_seen_to', 'limit', 'offset', 'page', 'q', 'severity', 'site_id', 'sort', 'status', 'type']);
    const status = issues.parameters!.find((p) => p.name === 'status') as unknown as { schema: { anyOf?: { enum?: string[] }[]; enum?: string[] } };
    expect(JSON.stringify(status.schema)).toContain('regressed');
    expect(issues.responses['400'].description).toContain('invalid_status');
    expect(issues.responses['401'].description).toContain('missing_auth');
    expect(issues.responses['429'].description).toContain('rate_limited');

    const patch = doc.paths['/v1/manage/issues/{issue_id}'].patch;
    expect(Object.keys(patch.requestBody!.content)).toEqual(['application/json']);
    expect(patch.responses['400'].description).toMatch(/invalid_uuid.*empty_body|empty_body.*invalid_uuid/);
    expect(patch.responses['404'].description).toContain('not_found');

    const keys = doc.paths['/v1/manage/keys'].post;
    expect(keys.responses['401'].description).toContain('jwt_required');

    const ingest = doc.paths['/v1/ingest'].post;
    expect(Object.keys(ingest.requestBody!.content).sort()).toEqual(['application/json', 'text/plain']);
    expect(JSON.stringify(ingest.requestBody)).toContain('signal_type');
    expect(Object.keys(ingest.responses)).toContain('202');

    const csv = doc.paths['/v1/query/export/events.csv'].get;
    expect(Object.keys(csv.responses['200'].content!)).toEqual(['text/csv']);

    // Errors a route raises on its own are listed under their status, not left to `default`.
    expect(doc.paths['/v1/manage/integrations'].post.responses['409'].description).toContain('conflict');
    expect(doc.paths['/v1/manage/members'].post.responses['409'].description).toContain('conflict');
    expect(doc.paths['/v1/manage/members/{id}'].delete.responses['409'].description).toContain('conflict');
    const ticket = doc.paths['/v1/manage/issues/{issue_id}/ticket'].post;
    expect(ticket.responses['409'].description).toContain('conflict');
    expect(ticket.responses['502'].description).toContain('upstream_error');
    expect(doc.paths['/readyz'].get.responses['503'].description).toContain('unavailable');
    expect(doc.paths['/sdk.js'].get.responses['503'].description).toContain('unavailable');
  });

  it('has one error envelope schema listing every code, with an example per code', () => {
    const schema = doc.components.schemas.ErrorEnvelope;
    expect(schema.properties.data).toEqual({ type: 'null' });
    expect(schema.properties.error.required.sort()).toEqual(['code', 'message', 'status']);
    expect(schema.properties.error.properties.code.enum.sort()).toEqual(Object.keys(ERROR_STATUS).sort());
    for (const [code, status] of Object.entries(ERROR_STATUS)) {
      expect(doc.components.examples[code].value).toMatchObject({ data: null, error: { code, status } });
    }
  });

  it('gives closed vocabularies as enums from their constants, and says why a map is left open', () => {
    const data = (path: string, method = 'get') => (doc.paths[path][method].responses['200'].content!['application/json'].schema as any).properties.data;
    const scores = data('/v1/query/scores');
    expect(scores.properties.duck_state.enum).toEqual([...DUCK_STATES]);
    expect(scores.properties.site.properties.overall_trend.enum).toEqual([...TRENDS]);
    const pageRow = scores.properties.site.properties.pages.items;
    expect(pageRow.additionalProperties).toBe(false);
    expect(pageRow.properties.trend.enum).toEqual([...TRENDS]);
    const alert = data('/v1/query/alerts').properties.alerts.items;
    expect(alert.additionalProperties).toBe(false);
    expect(alert.properties.severity.enum).toEqual([...ALERT_SEVERITIES]);
    expect(alert.properties.status.enum).toEqual([...ALERT_STATUSES]);
    expect(data('/v1/manage/alerts/{alert_id}', 'patch')).toEqual(alert);
    const issue = data('/v1/query/issues').properties.issues.items;
    expect(issue.properties.severity.enum).toEqual([...SEVERITIES]);
    expect(issue.properties.status.enum).toEqual([...ISSUE_STATUSES]);

    // Any map a response leaves open (keys that are data, not names) carries a description saying what it holds.
    const undescribed: string[] = [];
    const walk = (node: unknown, at: string): void => {
      if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${at}/${i}`));
      if (!node || typeof node !== 'object') return;
      const schema = node as Record<string, unknown>;
      // An intersection is closed as a whole (unevaluatedProperties), not by its parts.
      const open = !schema.allOf && (schema.patternProperties !== undefined || (schema.additionalProperties !== undefined && schema.additionalProperties !== false)
        || (schema.type === 'object' && !schema.properties && schema.additionalProperties !== false));
      if (open && !schema.description) undescribed.push(at);
      for (const [key, value] of Object.entries(schema)) walk(value, `${at}/${key}`);
    };
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        for (const [status, response] of Object.entries(op.responses)) walk(response.content, `${method} ${path} ${status}`);
      }
    }
    expect(undescribed).toEqual([]);
  });

  it('matches what the server actually sends', async () => {
    const ajv = new Ajv2020({ strict: false });
    const errorSchema = ajv.compile(doc.components.schemas.ErrorEnvelope);
    const denied = await h.app.inject({ method: 'GET', url: '/v1/query/scores' });
    expect(denied.statusCode).toBe(401);
    expect(errorSchema(denied.json()), JSON.stringify(errorSchema.errors)).toBe(true);

    const whoamiSchema = ajv.compile((doc.paths['/v1/query/whoami'].get.responses['200'].content!['application/json'] as { schema: object }).schema);
    const whoami = await h.app.inject({ method: 'GET', url: '/v1/query/whoami', headers: bearer(org.keys.secret) });
    expect(whoami.statusCode).toBe(200);
    expect(whoamiSchema(whoami.json()), JSON.stringify(whoamiSchema.errors)).toBe(true);

    // Routes whose responses are not JSON still answer as before.
    const preflight = await h.app.inject({ method: 'OPTIONS', url: '/v1/ingest', headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST' } });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.body).toBe('');
    expect(preflight.headers['access-control-allow-origin']).toBe('*');
    const metrics = await h.app.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.headers['content-type']).toMatch(/^text\/plain/);
    expect(metrics.body).toContain('# HELP');
  });

  it('is public, and keeps the envelope for errors (405, 404)', async () => {
    const withJunkKey = await h.app.inject({ method: 'GET', url: '/v1/openapi.json', headers: bearer('svc_sec_not-a-key') });
    expect(withJunkKey.statusCode).toBe(200);
    const post = await h.app.inject({ method: 'POST', url: '/v1/openapi.json', payload: {} });
    expect(post.statusCode).toBe(405);
    expect(post.headers.allow).toContain('GET');
    expect(post.json()).toMatchObject({ data: null, error: { code: 'method_not_allowed', status: 405 } });
  });
});

describe('API reference at /docs', () => {
  const h = useHarness('sqlite');

  /** Every src/href of the page, resolved against the page's URL. */
  const assetsOf = (html: string, pageUrl: string) =>
    [...html.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((m) => m[1]).map((ref) => ({ ref, path: new URL(ref, `http://local${pageUrl}`).pathname }));

  it.each(['/docs', '/docs/'])('%s is HTML whose assets all load from this server', async (url) => {
    const page = await h.app.inject({ method: 'GET', url });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toContain('<div id="swagger-ui">');
    expect(page.headers['content-security-policy']).toContain("default-src 'self'");
    const assets = assetsOf(page.body, url);
    expect(assets.length).toBeGreaterThanOrEqual(5);
    for (const { ref, path } of assets) {
      expect(ref, 'no external URL').not.toMatch(/^(https?:)?\/\//);
      const res = await h.app.inject({ method: 'GET', url: path });
      expect(res.statusCode, path).toBe(200);
      expect(res.body.length, path).toBeGreaterThan(0);
    }
  });

  it('points the UI at this server\'s document and at no public validator', async () => {
    const init = await h.app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
    expect(init.statusCode).toBe(200);
    expect(init.body).toContain('validatorUrl: null');
    expect(init.body).toContain("resolveUrl('./json')");
    const [ui, api] = await Promise.all([
      h.app.inject({ method: 'GET', url: '/docs/json' }),
      h.app.inject({ method: 'GET', url: '/v1/openapi.json' }),
    ]);
    expect(ui.json()).toEqual(api.json());
  });

  it('keeps the envelope for a missing asset (404) and a wrong method (405)', async () => {
    const missing = await h.app.inject({ method: 'GET', url: '/docs/static/nothing-here.js' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ data: null, error: { code: 'not_found', status: 404 } });
    const post = await h.app.inject({ method: 'POST', url: '/docs', payload: {} });
    expect(post.statusCode).toBe(405);
    expect(post.json()).toMatchObject({ data: null, error: { code: 'method_not_allowed' } });
  });
});
