// The OpenAPI 3.1 document (GET /v1/openapi.json) and the rendered reference (/docs).
// Nothing here is hand-written per route: operations come from the route schemas, security
// from each route's `config.access`, error responses from the envelope schema and the code
// table. Swagger UI's assets are served from the package, never from a CDN.
import { createRequire } from 'node:module';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifyInstance, FastifySchema, RouteOptions } from 'fastify';
import { KEY_TYPE_RULES, type KeyType } from '../auth/api-keys.ts';
import type { Access } from './access.ts';
import { ErrorEnvelope } from './envelope.ts';
import { ERROR_STATUS, type ErrorCode } from '../domain/errors.ts';

/** What a route adds to its document beyond its schema (a body it validates itself, extra error codes). */
export interface RouteDocs {
  /** A body the handler checks itself (so Fastify must not validate it): documented only. */
  body?: TSchema;
  consumes?: string[];
  /** Error codes the route raises beyond those its access rule and schema imply. */
  errors?: readonly ErrorCode[];
  /** Query parameters of which a request must give exactly one (the handler checks it: 400 invalid_input otherwise). */
  exactlyOneOf?: readonly string[];
  /**
   * Statuses at which the route (an OAuth endpoint, features/oauth) may also answer OAuth's own
   * error object (RFC 6749 5.2), or for a browser's authorization request a plain page, beside
   * the envelope of what Mallard refuses first; with what the answer means.
   */
  oauthErrors?: Partial<Record<400 | 401, string>>;
  /** The credential is a publishable key in `?key=` (a public route that checks it like a key): the security scheme publishableKeyQuery, which also stands for the parameter. */
  keyInQuery?: boolean;
}

declare module 'fastify' {
  interface FastifyContextConfig { docs?: RouteDocs }
}

export const OPENAPI_PATH = '/v1/openapi.json';
export const DOCS_PATH = '/docs';

const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };

const PUBLIC: Access = { surface: 'public' };

const KEY_SCHEMES: Record<KeyType, string> = { secret: 'secretKey', mcp: 'mcpKey', publishable: 'publishableKey' };
const JWT_SCHEME = 'userToken';
const SESSION_SCHEME = 'sessionCookie';
const OAUTH_SCHEME = 'mcpOAuth';
const QUERY_KEY_SCHEME = 'publishableKeyQuery';
const QUERY_RULE_KEY = 'x-mallard-query-rule';

const SECURITY_SCHEMES = {
  mcpOAuth: {
    type: 'oauth2',
    description: 'An OAuth 2.1 access token Mallard issues for the MCP endpoint only (docs/mcp.md, "Connecting with OAuth"): the authorization code flow with PKCE S256, clients registered at `/oauth/register`, metadata at `/.well-known/oauth-authorization-server`. It acts as the person who approved it, within the org, sites and access they chose.',
    flows: { authorizationCode: { authorizationUrl: '/oauth/authorize', tokenUrl: '/oauth/token', refreshUrl: '/oauth/token', scopes: { mcp: 'The MCP endpoint (what it may do is what the person approved)' } } },
  },
  secretKey: {
    type: 'http', scheme: 'bearer', bearerFormat: 'svc_sec_…',
    description: 'Secret key (`svc_sec_` + 40 base62 characters), for servers only. Its scopes (`ingest:write`, `query:read`, `manage:write`, `mcp:read`, `webhook:write`) are fixed at creation; each operation lists the scopes that satisfy it (any one).',
  },
  mcpKey: {
    type: 'http', scheme: 'bearer', bearerFormat: 'svc_mcp_…',
    description: 'MCP key (`svc_mcp_`), for AI assistants: holds `mcp:read` and reads `/v1/query`.',
  },
  publishableKey: {
    type: 'http', scheme: 'bearer', bearerFormat: 'svc_pub_…',
    description: 'Publishable key (`svc_pub_`), safe in browsers: only ingests (also accepted as `key` in the batch body).',
  },
  sessionCookie: {
    type: 'apiKey', in: 'cookie', name: 'mallard_session',
    description: 'The dashboard\'s session (POST /v1/auth/session): an HttpOnly cookie, used when no Authorization header is sent. Every write it signs also carries the session\'s `X-CSRF-Token` header (from POST or GET /v1/auth/session), else 403 `csrf_failed`. It stands wherever a user token does.',
  },
  publishableKeyQuery: {
    type: 'apiKey', in: 'query', name: 'key',
    description: 'A publishable key (`svc_pub_`) as `?key=`, where a browser cannot send a header (`GET /v1/sdk-config`); without one the answer is 401 `missing_auth`.',
  },
  userToken: {
    type: 'http', scheme: 'bearer', bearerFormat: 'JWT',
    description: 'User token from `POST /v1/auth/login` (HS256, 15 minutes to 24 hours). Each operation lists the lowest role it needs (`viewer` < `member` < `admin` < `owner`).',
  },
} as const;

const ERROR_MEANING: Partial<Record<number, string>> = {
  400: 'Missing or malformed input',
  401: 'No valid credential',
  403: 'Authenticated but not allowed',
  404: 'Not found (an unknown route, or a record that does not exist or belongs to another tenant)',
  409: 'Conflicts with the current state',
  413: 'Body too large',
  415: 'Body not sent as JSON',
  429: 'Rate limited, or the account locked after failed logins: `error.details.reset_at` says when to try again (the window reopens, or the account\'s delay or lock ends); `Retry-After` says the same in seconds',
  500: 'Server-side failure; the `x-request-id` header identifies it in the logs',
};

const ERROR_EXAMPLE_MESSAGE: Partial<Record<ErrorCode, { message: string; details?: Record<string, unknown> }>> = {
  invalid_input: { message: 'days: must be <= 90', details: { field: 'days', reason: 'must be <= 90' } },
  invalid_uuid: { message: 'issue_id must be a UUID', details: { field: 'issue_id' } },
  missing_site_id: { message: 'site_id is required for org-level credentials' },
  invalid_status: { message: 'status: is not one of the allowed values', details: { field: 'status', reason: 'is not one of the allowed values' } },
  empty_body: { message: 'This request needs a JSON body' },
  invalid_json: { message: 'The body is not valid JSON' },
  missing_auth: { message: 'Authorization header with a Bearer token is required' },
  invalid_key: { message: 'The API key is not valid' },
  jwt_required: { message: 'This route needs a user token (POST /v1/auth/login)' },
  missing_scope: { message: 'This route needs the scope query:read or mcp:read', details: { required: ['query:read', 'mcp:read'] } },
  insufficient_role: { message: 'This route needs the role admin or higher', details: { required: 'admin' } },
  org_scope_required: { message: 'This route needs an org-scoped credential' },
  csrf_failed: { message: 'A write signed in by the session cookie needs the x-csrf-token header from POST or GET /v1/auth/session' },
  not_found: { message: 'Issue not found' },
  rate_limited: { message: 'Too many requests', details: { reset_at: '2026-11-02T12:01:00.000Z' } },
  account_locked: { message: 'Too many failed logins for this account; try again after the reset time', details: { reset_at: '2026-11-02T12:00:02.000Z' } },
  mfa_required: { message: 'This account signs in with two factors: send otp, a code from the authenticator app or a recovery code', details: { methods: ['totp', 'recovery_code'] } },
  invalid_otp: { message: 'The one-time code is not valid, was already used or has expired' },
  mfa_required_by_org: { message: 'The org requires two-factor sign-in for this account: it cannot be turned off' },
  mfa_enrolment_required: { message: 'The org requires two-factor sign-in: set it up first (POST /v1/auth/2fa/setup)' },
  sso_required: { message: 'This org signs its members in with single sign-on: start at details.start_url', details: { start_url: '/v1/auth/sso/start?email=ana%40shop.example' } },
  sso_discovery_failed: { message: 'The issuer\'s discovery document could not be read: host does not resolve', details: { field: 'issuer', reason: 'host does not resolve' } },
  sso_not_configured: { message: 'No single sign-on is set up for this org' },
  internal_error: { message: 'Something went wrong on our side; the request id identifies it in the logs' },
};

const ALL_CODES = Object.keys(ERROR_STATUS) as ErrorCode[];

type JsonSchema = Record<string, unknown>;

const ERRORS_KEY = 'x-mallard-errors';
const LIMITED_KEY = 'x-mallard-limited';
const OAUTH_ERRORS_KEY = 'x-mallard-oauth-errors';

/** RFC 6749's error object, as the OAuth endpoints answer a client's bad request. */
const OAUTH_ERROR_SCHEMA = {
  type: 'object', required: ['error'], additionalProperties: true,
  description: 'OAuth\'s error object (RFC 6749 5.2); extension members may follow',
  properties: { error: { type: 'string' }, error_description: { type: 'string' } },
};

/** The shared pieces every error response points at: the envelope schema and one example per code. */
function errorComponents() {
  const schema = JSON.parse(JSON.stringify(ErrorEnvelope)) as { properties: { error: { properties: { code: JsonSchema } } } };
  schema.properties.error.properties.code = { type: 'string', enum: ALL_CODES, description: 'Stable machine-matchable code; match on this' };
  const examples: Record<string, { summary: string; value: unknown }> = {};
  for (const code of ALL_CODES) {
    const sample = ERROR_EXAMPLE_MESSAGE[code];
    const error: JsonSchema = { code, message: sample?.message ?? code.replaceAll('_', ' '), status: ERROR_STATUS[code] };
    if (sample?.details) error.details = sample.details;
    examples[code] = { summary: `${ERROR_STATUS[code]} ${code}`, value: { data: null, error } };
  }
  return { schema, examples };
}

function errorResponse(codes: ErrorCode[], description: string) {
  const examples = Object.fromEntries(codes.map((code) => [code, { $ref: `#/components/examples/${code}` }]));
  return {
    description: `${codes.map((c) => `\`${c}\``).join(', ')}: ${description}`,
    content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' }, examples } },
  };
}

const props = (schema: unknown): Record<string, unknown> =>
  ((schema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {});

/** The error codes a route can answer with, by HTTP status, derived from its access rule and schema. */
function errorCodesOf(route: RouteOptions, schema: FastifySchema, access: Access | undefined, docs: RouteDocs | undefined) {
  const codes = new Set<ErrorCode>(docs?.errors ?? []);
  const surface = access?.surface ?? 'public';
  const hasBody = schema.body !== undefined || docs?.body !== undefined;
  const params = Object.keys(props(schema.params));
  const query = props(schema.querystring);
  const authenticated = surface === 'query' || surface === 'manage' || surface === 'ingest' || (surface === 'auth' && access?.jwtOnly);
  const writes = ['POST', 'PATCH', 'PUT'].includes(String(route.method));

  // Any request may carry a NUL character or bad percent-encoding in its query string or path,
  // and a body may nest too deep (http/request-data.ts): refused as invalid_input on every route.
  codes.add('invalid_input');
  if (params.some((p) => p === 'id' || p.endsWith('_id'))) codes.add('invalid_uuid');
  if ((surface === 'query' || surface === 'manage') && ('site_id' in query || 'site_id' in props(schema.body))) {
    codes.add('missing_site_id');
    codes.add('invalid_uuid');
  }
  if ('status' in query || 'status' in props(schema.body)) codes.add('invalid_status');
  if (hasBody || (writes && (access?.bodyRequired ?? true))) codes.add('empty_body');
  // Any method but GET may carry a body, even where the route takes none: it is still parsed.
  if (hasBody || route.method !== 'GET') {
    codes.add('invalid_json');
    codes.add('payload_too_large');
    codes.add('unsupported_media_type');
  }
  if (authenticated) {
    for (const c of ['missing_auth', 'invalid_key', 'expired_key', 'invalid_jwt', 'rate_limited'] as const) codes.add(c);
    if (access?.jwtOnly) codes.add('jwt_required');
    // A user the org requires to use two factors, who has none yet, may only enrol (http/access.ts).
    if (surface !== 'ingest' && !access?.duringMfaEnrolment) codes.add('mfa_enrolment_required');
    // A write signed in by the dashboard's session cookie without its CSRF token (http/session-cookie.ts).
    if (surface !== 'ingest' && route.method !== 'GET') codes.add('csrf_failed');
    if (surface === 'ingest') {
      // A user token is checked (invalid_jwt when bad) before it is refused as not a key.
      // An org-level secret key must name the site of its batch.
      codes.add('missing_site_id');
      codes.add('forbidden');
      codes.add('missing_scope');
    } else {
      codes.add('missing_scope');
      if (access?.role) codes.add('insufficient_role');
      if (access?.orgScope) codes.add('org_scope_required');
    }
    if (surface === 'query' || surface === 'manage' || surface === 'ingest') {
      codes.add('forbidden');
      codes.add('not_found');
    }
  }
  if (params.length > 0) codes.add('not_found');
  if (acceptsIdempotencyKey(route, access)) codes.add('idempotency_conflict');
  // Any request can meet these before or around its route: a client too slow to send it,
  // headers too large, a server shutting down, a database restarting or out of disk space.
  for (const c of ['internal_error', 'request_timeout', 'headers_too_large', 'unavailable', 'storage_full'] as const) codes.add(c);

  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of ALL_CODES) {
    if (!codes.has(code)) continue;
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return byStatus;
}

const acceptsIdempotencyKey = (route: RouteOptions, access: Access | undefined) => route.method === 'POST' && access?.surface === 'manage';

/** The header every POST under /v1/manage accepts (http/idempotency.ts). */
const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(Type.String({
    minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$',
    description: 'Makes a retry safe: the same key with the same body from the same credential within 24 hours replays the first successful answer (header `Idempotent-Replayed: true`) without doing the work again; another body is 409 `idempotency_conflict`.',
  })),
});

/** OpenAPI security requirements: which credentials satisfy a route (any one). */
function securityOf(access: Access | undefined): { [scheme: string]: string[] }[] {
  const surface = access?.surface ?? 'public';
  if (surface === 'public' || (surface === 'auth' && !access?.jwtOnly)) return [];
  const role = access?.role ? [access.role] : [];
  if (access?.jwtOnly) return [{ [JWT_SCHEME]: role }, { [SESSION_SCHEME]: role }];
  const scopes: readonly string[] = surface === 'ingest' ? ['ingest:write'] : access?.scopes ?? [];
  const out: { [scheme: string]: string[] }[] = [];
  for (const type of Object.keys(KEY_SCHEMES) as KeyType[]) {
    const granted = scopes.filter((s) => (KEY_TYPE_RULES[type].allowed as readonly string[]).includes(s));
    if (granted.length > 0) out.push({ [KEY_SCHEMES[type]]: granted });
  }
  if (surface !== 'ingest') out.push({ [JWT_SCHEME]: role }, { [SESSION_SCHEME]: role });
  if (access?.oauth) out.push({ [OAUTH_SCHEME]: ['mcp'] });
  return out;
}

const operationId = (method: string, url: string) =>
  method.toLowerCase() + url.replace(/^\/v1/, '').split(/[/._-]/).filter(Boolean)
    .map((part) => part.startsWith(':') ? `By${camel(part.slice(1))}` : camel(part)).join('');
const camel = (s: string) => s.split('_').map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('');

const describeAccess = (access: Access | undefined) => {
  const surface = access?.surface ?? 'public';
  if (surface === 'public' || (surface === 'auth' && !access?.jwtOnly)) return 'Public: no credential needed.';
  if (surface === 'ingest') return 'Credential: a publishable key (header or `key` in the body), or a secret key with `ingest:write`.';
  const parts = [];
  if (access?.jwtOnly) parts.push('a user token only (keys are refused with `jwt_required`)');
  else if (access?.scopes?.length) parts.push(`a key with ${access.scopes.map((s) => `\`${s}\``).join(' or ')}, or a user token`);
  if (access?.role) parts.push(`role \`${access.role}\` or higher`);
  if (access?.orgScope) parts.push('an org-scoped credential');
  return `Credential: ${parts.join('; ')}.`;
};

/** Route schema -> the operation the document shows: security, error responses, ids. */
function transform({ schema: routeSchema, url, route }: { schema: FastifySchema; url: string; route: RouteOptions }) {
  const config = (route.config ?? {}) as { access?: Access; docs?: RouteDocs };
  // Swagger UI hides its own routes; its page itself is part of the contract (DESIGN.md).
  const schema = url === DOCS_PATH && route.method === 'GET'
    ? {
      tags: ['docs'], summary: 'This API reference, rendered (Swagger UI; assets served from this server)', operationId: 'getDocs',
      response: { 200: { description: 'HTML page', content: { 'text/html': { schema: Type.String() } } } },
    } as FastifySchema
    : routeSchema;
  if (!schema || schema.hide) return { schema, url };
  const { access, docs } = config;
  const out: FastifySchema & Record<string, unknown> = { ...schema };
  if (docs?.body && !schema.body) out.body = docs.body;
  if (docs?.consumes) out.consumes = docs.consumes;
  if (typeof route.method === 'string' && !schema.operationId) out.operationId = operationId(route.method, url);
  if (acceptsIdempotencyKey(route, access) && !schema.headers) out.headers = IdempotencyHeaders;
  out.security = docs?.keyInQuery ? [{ [QUERY_KEY_SCHEME]: [] }] : securityOf(access);
  const accessNote = docs?.keyInQuery ? 'Credential: a publishable key as `?key=`.' : describeAccess(access);
  const notes = [schema.description, accessNote];
  if (docs?.exactlyOneOf) {
    // OpenAPI has no rule across parameters: said in words, and as a JSON Schema of the whole query.
    notes.push(`Give exactly one of ${docs.exactlyOneOf.map((name) => `\`${name}\``).join(' and ')}; otherwise 400 \`invalid_input\`.`);
    out[QUERY_RULE_KEY] = { oneOf: docs.exactlyOneOf.map((name) => ({ required: [name] })) };
  }
  out.description = notes.filter(Boolean).join('\n\n');
  const responses: Record<string, unknown> = {};
  for (const [status, response] of Object.entries((schema.response ?? {}) as Record<string, JsonSchema>)) {
    responses[status] = response.description ? response : { ...response, description: SUCCESS[status] ?? 'Success' };
  }
  out.response = responses;
  // Error responses all share one schema and example set: transformObject adds them by reference.
  out[ERRORS_KEY] = Object.fromEntries(errorCodesOf(route, schema, access, docs));
  if (docs?.oauthErrors) out[OAUTH_ERRORS_KEY] = { page: route.method === 'GET', statuses: docs.oauthErrors };
  // Query and manage routes count every authenticated request (http/limits.ts), except a route that counts its own.
  out[LIMITED_KEY] = (access?.surface === 'query' || access?.surface === 'manage') && !access.ownRateLimit;
  return { schema: out, url };
}

const SUCCESS: Record<string, string> = { 200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No content' };

interface Operation {
  tags?: string[]; parameters?: Parameter[]; responses: Record<string, unknown>;
  [ERRORS_KEY]?: Record<string, ErrorCode[]>; [LIMITED_KEY]?: boolean;
  [OAUTH_ERRORS_KEY]?: { page: boolean; statuses: Partial<Record<400 | 401, string>> }; [QUERY_RULE_KEY]?: { oneOf: { required: string[] }[] };
}

/** An OAuth endpoint's own errors beside the envelope: the error object (a client's request) or a page (a browser's). */
function oauthErrorResponses(op: Operation) {
  const extra = op[OAUTH_ERRORS_KEY];
  if (!extra) return;
  for (const [status, meaning] of Object.entries(extra.statuses)) {
    const response = (op.responses[status] ??= { description: meaning, content: {} }) as { description: string; content: Record<string, { schema: unknown }> };
    if (response.description !== meaning) response.description = `${response.description}. Or from the authorization server: ${meaning}`;
    if (extra.page) {
      response.content['text/html'] = { schema: { type: 'string' } };
    } else {
      const json = response.content['application/json'];
      response.content['application/json'] = json ? { ...json, schema: { anyOf: [json.schema, OAUTH_ERROR_SCHEMA] } } : { schema: OAUTH_ERROR_SCHEMA };
    }
  }
}

/**
 * Response bodies are allow-lists: the serializer writes only the properties a schema names, so
 * every object schema that names its properties says so (`additionalProperties: false`).
 */
function closeObjects(schema: unknown, closeThis = true): void {
  if (Array.isArray(schema)) return schema.forEach((item) => closeObjects(item));
  if (!schema || typeof schema !== 'object') return;
  const node = schema as JsonSchema;
  if (Array.isArray(node.allOf)) {
    // The parts of an intersection each name only some properties: the whole is closed instead.
    if (closeThis && !('unevaluatedProperties' in node)) node.unevaluatedProperties = false;
    for (const part of node.allOf) closeObjects(part, false);
  } else if (closeThis && node.type === 'object' && node.properties && !('additionalProperties' in node) && !node.patternProperties) {
    node.additionalProperties = false;
  }
  for (const [key, value] of Object.entries(node)) if (key !== 'allOf') closeObjects(value);
}

/** The rate-limit headers every answer of a limited route carries (http/limits.ts). */
const RATE_LIMIT_HEADERS = {
  'ratelimit-limit': { description: 'Requests allowed in the current window', schema: { type: 'integer' } },
  'ratelimit-remaining': { description: 'Requests left in the current window', schema: { type: 'integer' } },
  'ratelimit-reset': { description: 'Seconds until the window reopens', schema: { type: 'integer' } },
};

interface Parameter { in: string; name: string; required?: boolean; description?: string; schema?: JsonSchema }

/** Parameters as they behave: one with a default may be left out; a path id is a UUID; each of a pair where exactly one is needed says so. */
function exactParameters(op: Operation) {
  const oneOf = op[QUERY_RULE_KEY]?.oneOf.flatMap((branch) => branch.required) ?? [];
  for (const p of op.parameters ?? []) {
    if (p.in === 'query' && p.schema && 'default' in p.schema) p.required = false;
    if (p.in === 'path' && (p.name === 'id' || p.name.endsWith('_id')) && p.schema) p.schema.format = 'uuid';
    if (p.in === 'query' && oneOf.includes(p.name)) {
      const rule = `Exactly one of ${oneOf.map((name) => `\`${name}\``).join(' and ')} is required.`;
      p.description = p.description ? `${p.description}. ${rule}` : rule;
    }
  }
}

/** Adds the error responses by reference, the shared error components, and the list of tags. */
function transformObject({ openapiObject }: { openapiObject: Record<string, unknown> }) {
  const tags: string[] = [];
  for (const item of Object.values(openapiObject.paths as Record<string, Record<string, Operation>>)) {
    for (const op of Object.values(item)) {
      for (const tag of op.tags ?? []) if (!tags.includes(tag)) tags.push(tag);
      exactParameters(op);
      for (const [status, response] of Object.entries(op.responses)) {
        closeObjects(response);
        if (op[LIMITED_KEY]) (response as { headers?: unknown }).headers = { ...(response as { headers?: object }).headers, ...RATE_LIMIT_HEADERS };
        void status;
      }
      for (const [status, codes] of Object.entries(op[ERRORS_KEY] ?? {})) {
        op.responses[status] ??= errorResponse(codes, ERROR_MEANING[Number(status)] ?? 'Error');
        if (op[LIMITED_KEY]) (op.responses[status] as { headers?: unknown }).headers = { ...RATE_LIMIT_HEADERS, ...(status === '429' ? { 'retry-after': { description: 'Seconds until the window reopens', schema: { type: 'integer' } } } : {}) };
      }
      oauthErrorResponses(op);
      delete op[ERRORS_KEY];
      delete op[LIMITED_KEY];
      delete op[OAUTH_ERRORS_KEY];
    }
  }
  const { schema, examples } = errorComponents();
  const components = openapiObject.components as Record<string, Record<string, unknown>>;
  return {
    ...openapiObject,
    tags: tags.map((name) => ({ name })),
    components: {
      ...components,
      schemas: { ...components.schemas, ErrorEnvelope: schema },
      examples: { ...components.examples, ...examples },
      responses: { ...components.responses, Error: errorResponse(ALL_CODES, 'Any other error, in the same envelope') },
    },
  };
}

/**
 * Registers the generator (before any route, so it sees them all), GET /v1/openapi.json and
 * /docs. Both are public, and their errors use the envelope like every other route.
 */
export async function registerOpenApi(app: FastifyInstance) {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Mallard API',
        version,
        summary: 'Self-hostable confusion analytics',
        description: 'Every JSON response is an envelope `{ data, error }`: `data` on success, `error` (`code`, `message`, `status`, optional `details`, optional `duck`) on failure. Send credentials as `Authorization: Bearer <key or token>`. Lists take `offset` and `limit` and return `total`, `offset`, `limit`.',
        license: { name: 'MIT', identifier: 'MIT' },
      },
      servers: [{ url: '/', description: 'This server' }],
      components: { securitySchemes: SECURITY_SCHEMES },
    },
    transform: transform as never,
    transformObject: transformObject as never,
  });

  let document: string | null = null;
  app.get(OPENAPI_PATH, {
    config: { access: PUBLIC },
    schema: {
      tags: ['docs'], summary: 'This OpenAPI 3.1 document (raw, not in the envelope)', operationId: 'getOpenapiDocument',
      response: {
        200: {
          description: 'The OpenAPI document',
          content: { 'application/json': { schema: Type.Object({ openapi: Type.String({ examples: ['3.1.0'] }) }, { additionalProperties: true, description: 'An OpenAPI 3.1 document (see the OpenAPI specification for its fields)' }) } },
        },
      },
    },
  }, async (_request, reply) => {
    document ??= JSON.stringify(app.swagger());
    return reply.type('application/json; charset=utf-8').send(document);
  });

  // Swagger UI adds its page and assets itself, without route options of ours: in this scope
  // every route it adds is declared public (the route table refuses routes without a rule).
  await app.register(async (docs) => {
    docs.addHook('onRoute', (route) => {
      route.config = { ...route.config, access: PUBLIC };
    });
    await docs.register(swaggerUi, {
      routePrefix: DOCS_PATH,
      // No call to the public validator: the page makes no request beyond this server.
      validatorUrl: false,
      uiConfig: { deepLinking: true, persistAuthorization: false, tryItOutEnabled: false },
      staticCSP: "default-src 'self'; base-uri 'self'; connect-src 'self'; font-src 'self' data:; frame-ancestors 'self'; img-src 'self' data:; object-src 'none'; script-src 'self'; script-src-attr 'none'; style-src 'self' 'unsafe-inline'",
      theme: { title: 'Mallard API reference' },
    });
  });
}
