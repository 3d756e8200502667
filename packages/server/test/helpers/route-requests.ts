// Builds a request for any route of the route table from its own schema: path parameters,
// query string and body, with every id-like field (`id`, `*_id`) filled with a record of the
// kind it names, taken from the caller's id source. Values come from the schema (examples,
// defaults, enums, formats, bounds), then from a few hints by field name for what a schema
// cannot say (a page path, a target URL). Anything it cannot fill is an error naming the
// route and field: a route the security test cannot reach must fail it, never be skipped.
import type { RouteRule } from '../../src/http/route-table.ts';
import { T0 } from './harness.ts';

/** The record of each kind a request may name: the test decides whose. */
export type IdSource = (kind: string) => string;

export interface BuiltRequest {
  method: string;
  /** Path with parameters filled, plus the query string. */
  url: string;
  /** A JSON body, or undefined for routes that take none. */
  body: unknown;
  /** Headers the route needs besides the credential. */
  headers: Record<string, string>;
  /** The kinds of record the request names (site, issue, webhook, ...). */
  kinds: Set<string>;
}

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  allOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
  examples?: unknown[];
  default?: unknown;
  format?: string;
  pattern?: string;
  minLength?: number;
  minimum?: number;
  exclusiveMinimum?: number;
  minItems?: number;
  minProperties?: number;
  patternProperties?: Record<string, Schema>;
};

/** Values no schema can state: what a field of this name means to the service behind it. */
const HINTS: Record<string, unknown> = {
  page: '/checkout',
  a: '/checkout',
  b: '/cart',
  selector: 'button.pay',
  environment: 'production',
  table: 'events',
  url: 'http://127.0.0.1:9/route-security',
};

/** A body field that carries a credential: the test sends credentials in the header only. */
const CREDENTIAL_FIELDS = new Set(['key']);

/** Bodies whose validity depends on another field (a provider's config): what the schema cannot tell. */
const BODY_HINTS: Record<string, Record<string, unknown>> = {
  'POST /v1/manage/integrations': { provider: 'slack', config: { webhook_url: 'http://127.0.0.1:9/route-security' } },
  // The target member is a viewer: a real change of role (a no-op PATCH writes nothing to audit).
  'PATCH /v1/manage/members/:id': { role: 'member' },
  // An issuer on loopback where nothing listens: discovery is refused without a DNS query leaving the machine.
  'PUT /v1/manage/sso': { issuer: 'http://127.0.0.1:9/route-security', client_id: 'route-security', client_secret: 'route-security', email_domains: ['route-security.example'] },
};

/**
 * Writes whose body proves something only the signed-in person knows (their current password,
 * a code from their authenticator): a built body cannot, so they answer 4xx to everyone. They
 * name no record, so the security test still checks that they leak nothing and never fail.
 */
export const PROOF_ROUTES = new Set([
  'POST /v1/auth/change-password',
  'POST /v1/auth/2fa/enable',
  'POST /v1/auth/2fa/disable',
  'POST /v1/auth/2fa/recovery-codes',
  // Connecting SSO proves the issuer answers OpenID discovery; no issuer answers in this test.
  'PUT /v1/manage/sso',
  // The consent screen's calls prove the browser started the sign-in: the authorization
  // server's interaction cookie, which no built request carries (400 invalid_input).
  'GET /v1/auth/oauth/interaction/:uid/details',
  'HEAD /v1/auth/oauth/interaction/:uid/details',
  'POST /v1/auth/oauth/interaction/:uid/approve',
  'POST /v1/auth/oauth/interaction/:uid/deny',
]);

/**
 * Bodies only the test can make valid, given the records they name: a clip upload names its
 * session by `sid` (no `_id` in the name) and has an `id` of the SDK's that names no record.
 * A page snapshot of A's session, so it needs no signals.
 */
const BODY_BUILDERS: Record<string, (id: (kind: string) => string) => unknown> = {
  'POST /v1/ingest/clips': (id) => ({
    site_id: id('site'), sid: id('session'), id: 'c0ffee'.repeat(5).slice(0, 32), kind: 'snapshot', page: '/checkout',
    meta: { ua: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36' },
    started_at: T0, ended_at: T0, width: 1280, height: 2000,
    events: [{ type: 4, timestamp: T0, data: { href: 'https://shop.example/checkout', width: 1280, height: 720 } }, { type: 2, timestamp: T0, data: { node: { type: 0, id: 1, childNodes: [] } } }],
  }),
};

/** Headers a route's transport needs beyond the credential (what a schema of the body cannot say). */
const HEADER_HINTS: Record<string, Record<string, string>> = {
  'POST /v1/mcp': { accept: 'application/json, text/event-stream' },
};

/** `_id` fields that name no record of the store: a person's visitor id is a search term; an OIDC client id is the provider's name for Mallard. */
const NOT_RECORD_IDS = new Set(['visitor_id', 'client_id']);
const isIdField = (name: string) => (name === 'id' || name.endsWith('_id')) && !NOT_RECORD_IDS.has(name);

/** Query parameters a route needs that its schema cannot require (exactly one of two). */
const QUERY_HINTS: Record<string, Record<string, string>> = {
  'GET /v1/manage/privacy/export': { visitor_id: 'f'.repeat(32) },
  'HEAD /v1/manage/privacy/export': { visitor_id: 'f'.repeat(32) },
  'DELETE /v1/manage/privacy/subject': { visitor_id: 'f'.repeat(32) },
};

/** The kind of record an id field names: `issue_id` an issue; `:id` the resource of the segment before it. */
export function kindOf(name: string, segmentBefore?: string): string {
  if (name !== 'id') return name.slice(0, -'_id'.length);
  if (!segmentBefore) throw new Error('an `id` field outside a path names no kind of record');
  return segmentBefore.replace(/ies$/, 'y').replace(/s$/, '');
}

let unique = 0;

class Builder {
  readonly kinds = new Set<string>();
  constructor(private readonly where: string, private readonly ids: IdSource) {}

  id(kind: string): string {
    this.kinds.add(kind);
    return this.ids(kind);
  }

  fail(field: string, why: string): never {
    throw new Error(`Cannot build a request for ${this.where}: ${field} ${why}`);
  }

  /** A value for a field: its id, a hint, or what its schema allows. */
  field(name: string, schema: Schema, path: string): unknown {
    if (isIdField(name)) return this.id(kindOf(name));
    if (name in HINTS) return structuredClone(HINTS[name]);
    return this.value(schema, path);
  }

  value(schema: Schema, path: string): unknown {
    if (schema.examples?.length) return this.withIds(structuredClone(schema.examples[0]), schema);
    if (schema.default !== undefined) return structuredClone(schema.default);
    if (schema.const !== undefined) return schema.const;
    if (schema.enum?.length) return schema.enum[0];
    if (schema.anyOf) return this.firstOf(schema.anyOf, path);
    if (schema.allOf) return Object.assign({}, ...schema.allOf.map((part) => this.value(part, path)));
    const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
    switch (type) {
      case 'object': return this.object(schema, path);
      case 'array': {
        const count = Math.max(schema.minItems ?? 0, 1);
        const item = schema.items ?? this.fail(path, 'is an array without an item schema');
        // Distinct items where the schema lists them (uniqueItems), repeats otherwise.
        const choices = item.anyOf?.map((c) => c.const).filter((c) => c !== undefined) ?? item.enum ?? [];
        return Array.from({ length: count }, (_, i) => (choices.length > i ? choices[i] : this.value(item, `${path}[${i}]`)));
      }
      case 'string': return this.string(schema, path);
      case 'integer':
      case 'number': return schema.minimum ?? (schema.exclusiveMinimum === undefined ? 1 : schema.exclusiveMinimum + 1);
      case 'boolean': return true;
      case 'null': return null;
      default: return this.fail(path, 'has a schema this builder cannot fill (add an example to the schema or a hint)');
    }
  }

  private firstOf(options: Schema[], path: string): unknown {
    const nonNull = options.filter((o) => o.type !== 'null');
    for (const option of nonNull.length > 0 ? nonNull : options) {
      try {
        return this.value(option, path);
      } catch {
        // Try the next branch.
      }
    }
    return this.fail(path, 'matches no branch this builder can fill');
  }

  private string(schema: Schema, path: string): string {
    switch (schema.format) {
      case 'email': return `route-security-${++unique}@example.com`;
      case 'date-time': return new Date(Date.UTC(2026, 10, 1)).toISOString();
      case 'uri':
      case 'url': return 'http://127.0.0.1:9/route-security';
      case 'uuid': return this.fail(path, 'is a UUID that names no kind of record (name it `<kind>_id`)');
    }
    if (schema.pattern) return this.fail(path, `must match ${schema.pattern}: give it an example in the schema or a hint`);
    return 'route-security'.padEnd(schema.minLength ?? 0, '-');
  }

  /** Required properties, plus every id field (ids in bodies are what tenancy must check). */
  object(schema: Schema, path: string): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const properties = schema.properties ?? {};
    const required = new Set(schema.required ?? []);
    for (const [name, property] of Object.entries(properties)) {
      if (CREDENTIAL_FIELDS.has(name)) continue;
      if (required.has(name) || isIdField(name)) out[name] = this.field(name, property, `${path}.${name}`);
    }
    // A partial update needs at least one field: the first one that can be filled.
    if (Object.keys(out).length === 0 && (schema.minProperties ?? 0) > 0) {
      for (const [name, property] of Object.entries(properties)) {
        try {
          out[name] = this.field(name, property, `${path}.${name}`);
          break;
        } catch {
          // Try the next property.
        }
      }
    }
    return out;
  }

  /** An example as given, with its ids replaced by the caller's and its id fields completed. */
  withIds(example: unknown, schema: Schema): unknown {
    if (!example || typeof example !== 'object' || Array.isArray(example)) return example;
    const out = example as Record<string, unknown>;
    for (const name of Object.keys(out)) {
      if (CREDENTIAL_FIELDS.has(name)) delete out[name];
      // Record ids are strings; a number under `id` is something else (a JSON-RPC request id).
      else if (isIdField(name) && typeof out[name] === 'string') out[name] = this.id(kindOf(name));
    }
    for (const name of Object.keys(schema.properties ?? {})) {
      if (isIdField(name) && !(name in out)) out[name] = this.id(kindOf(name));
    }
    return out;
  }
}

/** A request for the route that passes its schema, naming the records `ids` gives for each kind. */
export function buildRequest(rule: RouteRule, ids: IdSource): BuiltRequest {
  const where = `${rule.method} ${rule.url}`;
  const b = new Builder(where, ids);
  const schema = (rule.schema ?? {}) as { params?: Schema; querystring?: Schema; body?: Schema };
  const params = schema.params?.properties ?? {};

  const segments = rule.url.split('/');
  const path = segments.map((segment, i) => {
    if (segment === '*') return 'route-security.txt';
    if (!segment.startsWith(':')) return segment;
    const name = segment.slice(1);
    if (isIdField(name)) return encodeURIComponent(b.id(kindOf(name, segments[i - 1])));
    return encodeURIComponent(String(b.field(name, params[name] ?? {}, `:${name}`)));
  }).join('/');

  const query = { ...(schema.querystring ? b.object(schema.querystring, 'query') : {}), ...QUERY_HINTS[where] };
  const search = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString();

  const bodySchema = schema.body ?? (rule.docs?.body as Schema | undefined);
  let body: unknown;
  if (BODY_BUILDERS[where]) {
    body = BODY_BUILDERS[where]((kind) => b.id(kind));
  } else if (bodySchema) {
    const hint = BODY_HINTS[where];
    body = hint ? b.withIds(structuredClone(hint), bodySchema) : b.value(bodySchema, 'body');
  }
  return { method: rule.method, url: search ? `${path}?${search}` : path, body, headers: HEADER_HINTS[where] ?? {}, kinds: b.kinds };
}
