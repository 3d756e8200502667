// buildApp(deps): the Fastify instance with the envelope, errors, authentication, access,
// rate limits and every feature's routes. No module state: tests build as many as they like.
import { STATUS_CODES } from 'node:http';
import Fastify, { type FastifyRequest, type FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { App, AppDeps } from './http/app-types.ts';
import { Ajv } from 'ajv';
import formatsModule from 'ajv-formats';
import { v7 as uuidv7 } from 'uuid';
import type { Config } from './config.ts';
import { Secrets } from './auth/secrets.ts';
import { AppError } from './domain/errors.ts';
import { validationError, type ValidationIssue } from './domain/validation-error.ts';
import type { ErrorBody } from './http/envelope.ts';
import { authorize, bearerToken, type Access } from './http/access.ts';
import { authenticate, authenticateSession } from './domain/authenticate.ts';
import fastifyCookie from '@fastify/cookie';
import { enforceCsrf, sessionCookieOf } from './http/session-cookie.ts';
import { withFailedAuthLockout } from './domain/rate-limits.ts';
import { duckOverride, randomDuckFact } from './http/ducks.ts';
import { UUID_PATTERN } from './domain/tenancy.ts';
import { enforceRateLimit } from './http/limits.ts';
import { registerIdempotency } from './http/idempotency.ts';
import { createMetrics } from './http/metrics.ts';
import { metricsRoute } from './http/metrics-route.ts';
import { registerRoutes } from './routes.ts';
import { mcpRoutes } from './mcp/routes.ts';
import { redirectToDashboard, wantsDashboard } from './http/routes/dashboard.ts';
import { registerOpenApi } from './http/openapi.ts';
import { depthError, nulError } from './http/request-data.ts';
import { collectRoutes } from './http/route-table.ts';
import { systemResolver, targetPolicy } from './delivery/targets.ts';
import { FAULT_RETRY_AFTER_SECONDS, storeFault } from './store/store-faults.ts';

export type { App, AppDeps };
export { loggerOptions } from './http/logging.ts';

export const BODY_LIMIT = 64 * 1024;
/** A client that has not sent its whole request by then gets 408 (slow-client protection). */
export const REQUEST_TIMEOUT_MS = 30_000;
const WRITE_METHODS = new Set(['POST', 'PATCH', 'PUT']);
const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

// ajv-formats is CommonJS: under NodeNext its default import is the module object.
const addFormats = (formatsModule as unknown as { default: (ajv: Ajv) => Ajv }).default;

/** Bodies are validated strictly (no coercion); query strings and params are coerced from text. */
function validators() {
  const options = { allErrors: false, useDefaults: true, strict: false } as const;
  const body = new Ajv({ ...options, coerceTypes: false, removeAdditional: false });
  const text = new Ajv({ ...options, coerceTypes: 'array', removeAdditional: false });
  addFormats(body);
  addFormats(text);
  return ({ schema, httpPart }: { schema: object; httpPart?: string }) =>
    (httpPart === 'body' ? body : text).compile(schema);
}

/**
 * Fastify refuses a bare hop count (it trusts no hop for one, since a client that reaches the
 * server directly could forge X-Forwarded-For); TRUST_PROXY=N means "N proxies always sit in
 * front", so the N nearest hops are trusted, whatever their address (docs/operations.md).
 */
function trustProxyOption(setting: Config['trustProxy']): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof setting === 'number') return (_address, hop) => hop < setting;
  return setting;
}

export async function buildApp(deps: AppDeps): Promise<App> {
  const requestTimeout = deps.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const app = Fastify({
    logger: deps.logger ?? false,
    bodyLimit: BODY_LIMIT,
    requestTimeout,
    // Headers and the whole request share the deadline (Node lets a longer headers timeout
    // shadow the request timeout), checked at an interval that fits it (Node's is 30 s).
    http: { requestTimeout, headersTimeout: requestTimeout, connectionsCheckingInterval: Math.max(50, Math.min(requestTimeout / 2, 30_000)) },
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : uuidv7();
    },
    // TRUST_PROXY: which address request.ip (per-IP limits, audit rows, logs) reports.
    trustProxy: trustProxyOption(deps.config.trustProxy),
    // While closing, requests still in flight finish; new ones get 503 `unavailable` in the
    // envelope from the onRequest hook below (Fastify's own 503 would skip the envelope).
    return503OnClosing: false,
    forceCloseConnections: 'idle',
    // Ids and names fit well within this; a longer path parameter is refused in the envelope below.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PATH_PARAM },
    // What the router refuses before any route runs still answers in the envelope.
    frameworkErrors: (error, request, reply) => {
      reply.header('x-request-id', request.id);
      return sendError(request, reply, routerError(error));
    },
    // What Node's HTTP parser refuses (not HTTP, headers too large, too slow) never reaches
    // Fastify: the answer is written on the socket, still in the envelope.
    clientErrorHandler: (error: NodeJS.ErrnoException, socket) => {
      if (error.code === 'ECONNRESET' || socket.destroyed) return;
      if (socket.writable) socket.write(rawErrorResponse(clientError(error)));
      socket.destroy();
    },
  }).withTypeProvider<TypeBoxTypeProvider>();
  let closing = false;
  app.addHook('preClose', async () => { closing = true; });

  const metrics = createMetrics();
  metrics.trackStoreFaults(deps.store.faults);
  metrics.trackRateLimiter(deps.limiter);
  metrics.trackWork(deps.store.readDb, () => deps.clock.now());
  app.decorate('services', {
    ...deps,
    secrets: new Secrets(deps.config.secret, deps.config.previousSecret),
    metrics,
    targets: targetPolicy(deps.config, deps.resolver ?? systemResolver),
    warmUps: [],
  });
  // Before the hooks below: they read the dashboard's session cookie (http/session-cookie.ts).
  await app.register(fastifyCookie);
  app.decorateRequest('auth', null);
  app.decorateRequest('access', null);
  app.setValidatorCompiler(validators());
  // Writes take JSON only; ingest adds its own text/plain parser in its own scope.
  app.removeContentTypeParser('text/plain');
  // An empty JSON body is no body: a route that takes none (DELETE, logout) accepts it from
  // clients that send the header on every request, and the others answer `empty_body` below.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body.toString();
    if (text === '') return done(null, undefined);
    // Before parsing: nothing that walks the body afterwards can overflow the stack.
    const tooDeep = depthError(text);
    if (tooDeep) return done(tooDeep, undefined);
    return parseJson(request, text, done);
  });

  const routes = collectRoutes(app);
  app.decorate('routeTable', routes);

  const { store, clock, limiter, secrets } = app.services;
  const identify = async (request: FastifyRequest, reply: FastifyReply, access: Access) => {
    const now = clock.now();
    // A missing or malformed header counts as a failed authentication too. Without an
    // Authorization header, the dashboard's session cookie signs the user in.
    const sessionToken = sessionCookieOf(request);
    request.auth = await withFailedAuthLockout(limiter, request.ip, now, () => (sessionToken !== null
      ? authenticateSession(store, secrets, sessionToken, now)
      : authenticate(store, secrets, bearerToken(request), now, { oauth: access.oauth === true })));
    if ((access.surface === 'query' || access.surface === 'manage') && !access.ownRateLimit) {
      await enforceRateLimit(app.services, request, reply, access.surface, now);
    }
    if (access.jwtOnly && request.auth.kind !== 'jwt') {
      throw new AppError('jwt_required', 'This route needs a user token (POST /v1/auth/login)');
    }
  };

  // The request hooks take a callback rather than returning a promise where they need not
  // wait: every request runs them, and a promise per hook is a measurable share of a cheap
  // route's cost (BENCHMARKS.md, "reads"). A hook that throws fails the request as a rejection does.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    if (closing) {
      reply.header('connection', 'close');
      throw new AppError('unavailable', 'The server is shutting down; retry shortly');
    }
    // Read once here: Fastify builds routeOptions anew on every read. Only an unmatched request
    // (404, 405) has no rule: the route table refuses to start with a route that declares none.
    const access = request.access = request.routeOptions.config.access ?? null;
    if (!access || access.surface === 'public' || access.surface === 'ingest' || (access.surface === 'auth' && !access.jwtOnly)) {
      done();
      return;
    }
    identify(request, reply, access).then(() => done(), done);
  });

  app.addHook('preValidation', (request, _reply, done) => {
    if (request.is404) {
      done();
      return;
    }
    const { access } = request;
    if (WRITE_METHODS.has(request.method) && (access?.bodyRequired ?? true) && request.body === undefined) {
      throw new AppError('empty_body', 'This request needs a JSON body');
    }
    // A route whose body is optional but has a schema (every field optional) reads no body as {}.
    if (request.body === undefined && access?.bodyRequired === false && request.routeOptions.schema?.body) request.body = {};
    for (const [name, value] of Object.entries((request.params ?? {}) as Record<string, string>)) {
      if ((name === 'id' || name.endsWith('_id')) && !UUID_PATTERN.test(value)) {
        throw new AppError('invalid_uuid', `${name} must be a UUID`, { field: name });
      }
    }
    if (access && request.auth) {
      authorize(request.auth, access);
      enforceCsrf(request, secrets);
    }
    // PostgreSQL text cannot hold a NUL character: refuse one anywhere in the query string, the
    // path or a JSON body as invalid input, rather than fail inside the store (ingest's own
    // parser turns one into U+FFFD).
    const nul = nulError(request.query) ?? nulError(request.params) ?? (access?.surface === 'ingest' ? null : nulError(request.body));
    if (nul) throw nul;
    done();
  });

  registerIdempotency(app);

  app.addHook('onResponse', (request, reply, done) => {
    metrics.observe(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime);
    done();
  });

  app.setErrorHandler(async (error, request, reply) => {
    const appError = toAppError(error);
    // A store fault is logged once per episode with its cause (store/store-faults.ts), not per request.
    if (storeFault(error)) app.services.store.faults.failed(error);
    // `unavailable` is said on purpose (shutting down, not ready), not a failure of the request.
    else if (appError.status >= 500 && appError.code !== 'unavailable') request.log.error({ err: error, reqId: request.id }, 'request failed');
    if ((appError.code === 'rate_limited' || appError.code === 'account_locked') && appError.details?.reset_at) {
      const seconds = Math.max(1, Math.ceil((Date.parse(String(appError.details.reset_at)) - app.services.clock.now()) / 1000));
      reply.header('retry-after', String(seconds));
    }
    if (appError.code === 'unavailable' || appError.code === 'storage_full') {
      reply.header('retry-after', String(FAULT_RETRY_AFTER_SECONDS[appError.code]));
    }
    return sendError(request, reply, appError);
  });

  app.setNotFoundHandler(async (request, reply) => {
    if (wantsDashboard(request)) return redirectToDashboard(reply);
    const path = request.url.split('?')[0];
    const allowed = routes.methodsFor(path);
    // A route that matched but found nothing (a missing static asset) is a 404, not a 405.
    if (allowed.length > 0 && !allowed.includes(request.method)) {
      reply.header('allow', allowed.join(', '));
      return sendError(request, reply, new AppError('method_not_allowed', `${request.method} is not allowed here; use ${allowed.join(', ')}`));
    }
    return sendError(request, reply, new AppError('not_found', `No route ${request.method} ${path}`));
  });

  // Before any route: the OpenAPI generator collects routes as they are added.
  await registerOpenApi(app);

  metricsRoute(app, metrics, deps.config.metricsToken);

  await registerRoutes(app);
  // The MCP endpoint: a face of its own beside the routes, over the same services.
  await app.register(mcpRoutes, { prefix: '/v1' });
  return app;
}

/** The longest path parameter the router takes (ids are 36 characters, names at most 128). */
const MAX_PATH_PARAM = 512;

/** The router's own refusals: a path that is not valid percent-encoding, or a parameter too long. */
function routerError(error: { code?: string }): AppError {
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    return new AppError('invalid_input', `A path parameter is longer than ${MAX_PATH_PARAM} characters`, { field: 'path', reason: 'too long' });
  }
  return new AppError('invalid_input', 'The path is not valid percent-encoding', { field: 'path', reason: 'bad percent-encoding' });
}

/** The parser's refusals, before there is a request: a slow client, oversized headers, not HTTP. */
function clientError(error: NodeJS.ErrnoException): AppError {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return new AppError('request_timeout', 'The request was not received in time');
  if (error.code === 'HPE_HEADER_OVERFLOW') return new AppError('headers_too_large', 'The request headers are too large');
  return new AppError('invalid_input', 'The request is not valid HTTP', { field: 'request', reason: 'malformed' });
}

/** A whole HTTP response for a socket that has no request object (Node's clientError). */
function rawErrorResponse(error: AppError): string {
  const requestId = uuidv7();
  const body = JSON.stringify({ data: null, error: { code: error.code, message: error.message, status: error.status, ...(error.details ? { details: error.details } : {}) } });
  return `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}\r\nContent-Type: application/json; charset=utf-8\r\n`
    + `Content-Length: ${Buffer.byteLength(body)}\r\nx-request-id: ${requestId}\r\nConnection: close\r\n\r\n${body}`;
}

function sendError(request: FastifyRequest, reply: FastifyReply, error: AppError) {
  const body: ErrorBody = { code: error.code, message: error.message, status: error.status };
  if (error.details && Object.keys(error.details).length > 0) body.details = error.details;
  const override = duckOverride(request);
  if (override ?? request.auth?.org.duckFacts ?? false) body.duck = randomDuckFact();
  return reply.code(error.status).type('application/json; charset=utf-8').send({ data: null, error: body });
}

interface FastifyLikeError { code?: string; statusCode?: number; validation?: ValidationIssue[]; validationContext?: string; message: string }

/** Maps every error the stack can raise onto the contract's codes. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const err = error as FastifyLikeError;
  if (err.validation?.length) return validationError(err.validation[0], err.validationContext);
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('unsupported_media_type', 'Send the body as JSON with Content-Type: application/json');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('payload_too_large', 'The request body is too large');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('empty_body', 'This request needs a JSON body');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError('invalid_json', 'The body is not valid JSON');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('invalid_input', 'Content-Length does not match the body', { field: 'content-length', reason: 'mismatch' });
  }
  if (err.code?.startsWith('Z_')) return new AppError('invalid_input', 'The body is not valid gzip', { field: 'body', reason: 'invalid gzip' });
  const fault = storeFault(error);
  if (fault === 'unavailable') return new AppError('unavailable', 'The database is not reachable right now; nothing was changed; retry shortly');
  if (fault === 'storage_full') return new AppError('storage_full', 'The store is out of disk space; nothing was changed; retry shortly');
  if (error instanceof SyntaxError && err.statusCode === 400) return new AppError('invalid_json', 'The body is not valid JSON');
  const status = err.statusCode ?? 500;
  if (status === 413) return new AppError('payload_too_large', 'The request body is too large');
  if (status === 415) return new AppError('unsupported_media_type', 'Unsupported content type');
  if (status >= 400 && status < 500) return new AppError('invalid_input', 'The request could not be understood', { reason: err.code ?? 'bad_request' });
  return new AppError('internal_error', 'Something went wrong on our side; the request id identifies it in the logs');
}

