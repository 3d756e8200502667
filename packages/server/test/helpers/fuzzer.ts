// A seeded request generator driven by the OpenAPI document: for a chosen operation it builds
// a request that is valid, at a boundary, or broken in one way (a malformed or huge value, the
// wrong type, unicode, bad percent-encoding, an injection string, an unknown field, the wrong
// method or content type, another tenant's id, a missing or foreign credential). The same seed
// gives the same requests. URLs it generates only ever point at loopback port 9 (closed), so a
// fuzzed webhook or integration can never send a packet off the machine.
import type { OpenApiDocument } from './contract.ts';

type Schema = Record<string, any>;
interface Parameter { in: 'path' | 'query' | 'header'; name: string; required?: boolean; schema?: Schema }
interface Operation { parameters?: Parameter[]; requestBody?: { content: Record<string, { schema: Schema }> }; security?: unknown[] }

export interface FuzzOperation { method: string; path: string; op: Operation }

export interface FuzzRequest {
  /** The operation it was generated from, when method and path still name it. */
  operation?: FuzzOperation;
  kind: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string;
  /** The credential sent belongs to this org ('own' or 'foreign'), or none was sent. */
  credential: 'own' | 'foreign' | 'none' | 'bogus';
}

/** mulberry32: a small, fast PRNG whose whole state is one number (the seed). */
export function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)];
  const chance = (p: number) => next() < p;
  return { next, int, pick, chance };
}
export type Random = ReturnType<typeof prng>;

export const SAFE_URLS = ['http://127.0.0.1:9/hook', 'http://[::1]:9/hook', 'https://127.0.0.1:9/x?y=1'];
const BAD_URLS = ['not a url', 'ftp://127.0.0.1:9/x', 'http://user:pw@127.0.0.1:9/', 'javascript:alert(1)', 'http://localhost:9/', '//127.0.0.1:9', 'http://0.0.0.0:9/', 'http://169.254.169.254/latest/meta-data/'];
const INJECTIONS = [
  "' OR '1'='1", "'; DROP TABLE events; --", '" OR ""="', '1; SELECT pg_sleep(1)', '<script>alert(1)</script>', '../../../../etc/passwd',
  '${7*7}', '{{7*7}}', '%00', '\u0000', '$where', '{"$gt": ""}', '__proto__', 'constructor', 'NaN', '-0', '1e309',
];
const UNICODE = ['ünïcødé', '日本語のテキスト', 'emoji 🦆🦆🦆', 'rtl \u202e txet', 'zero\u200bwidth', '\ud83d', 'a\u0301\u0301\u0301', 'ﾟ･✿ヾ╲(｡◕‿◕｡)╱✿･ﾟ'];
const BAD_ENCODINGS = ['%FF', '%E0%A4%A', '%', '%zz', '%C0%AF', '%2e%2e%2f'];
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

export interface FuzzIds {
  /** Ids that belong to the caller's org, by the resource a path names. */
  own: Record<string, string[]>;
  /** Ids of another org's records (the cross-tenant probe). */
  foreign: Record<string, string[]>;
}

/** Which resource a path parameter names: `/webhooks/{id}` is a webhook id. */
function resourceOf(path: string, name: string): string {
  if (name !== 'id') return name.replace(/_id$/, '');
  const match = /\/([a-z-]+)\/\{id\}/.exec(path);
  return match ? match[1].replace(/s$/, '') : 'id';
}

const randomUuid = (r: Random) => {
  const hex = () => r.int(0, 15).toString(16);
  const part = (n: number) => Array.from({ length: n }, hex).join('');
  return `${part(8)}-${part(4)}-7${part(3)}-${r.pick(['8', '9', 'a', 'b'])}${part(3)}-${part(12)}`;
};

/** A string that satisfies the schema's common constraints (pattern-shaped ones by example). */
function validString(s: Schema, r: Random, name: string): string {
  if (s.enum) return r.pick(s.enum);
  if (s.const !== undefined) return s.const;
  if (s.format === 'date-time') return new Date(Date.UTC(2026, 10, r.int(1, 2), r.int(0, 11))).toISOString();
  if (s.format === 'email') return `fuzz${r.int(0, 99999)}@example.com`;
  if (s.format === 'uuid' || s.description === 'UUID') return randomUuid(r);
  if (/url|endpoint/i.test(name)) return r.pick(SAFE_URLS);
  if (Array.isArray(s.examples) && s.examples.length && typeof s.examples[0] === 'string') return r.pick(s.examples);
  if (s.pattern) return r.pick(['production', 'staging', 'abc', 'x1', '/checkout', 'a.b-c_d']);
  const min = s.minLength ?? 1;
  const max = Math.min(s.maxLength ?? 24, 24);
  const length = r.int(min, Math.max(min, max));
  return Array.from({ length }, () => 'abcdefghijklmnopqrstuvwxyz0123456789'[r.int(0, 35)]).join('') || 'x';
}

/** A value the schema accepts (as far as the generator can tell). */
export function validValue(schema: Schema | undefined, r: Random, name = '', depth = 0): unknown {
  const s = schema ?? {};
  if (s.anyOf) return validValue(r.pick(s.anyOf), r, name, depth);
  if (s.oneOf) return validValue(r.pick(s.oneOf), r, name, depth);
  if (s.default !== undefined && r.chance(0.2)) return s.default;
  const type = Array.isArray(s.type) ? r.pick(s.type) : s.type;
  switch (type) {
    case 'null': return null;
    case 'boolean': return r.chance(0.5);
    case 'integer': return r.int(s.minimum ?? 0, Math.min(s.maximum ?? 100, (s.minimum ?? 0) + 100));
    case 'number': return (s.minimum ?? 0) + r.next() * Math.min(1, (s.maximum ?? 1) - (s.minimum ?? 0));
    case 'string': return validString(s, r, name);
    case 'array': {
      const n = r.int(s.minItems ?? 0, Math.min(s.maxItems ?? 3, (s.minItems ?? 0) + 3));
      return Array.from({ length: n }, () => validValue(s.items, r, name, depth + 1));
    }
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [key, sub] of Object.entries((s.properties ?? {}) as Record<string, Schema>)) {
        if ((s.required ?? []).includes(key) || r.chance(0.5)) out[key] = validValue(sub, r, key, depth + 1);
      }
      return out;
    }
    default: return s.enum ? r.pick(s.enum) : 'x';
  }
}

/** A value that breaks the schema, or probes it with something hostile. */
function hostileValue(schema: Schema | undefined, r: Random): unknown {
  const s = schema ?? {};
  return r.pick([
    () => null, () => true, () => 12345, () => -1, () => 1e308, () => 2 ** 53 + 1, () => 0.5, () => '', () => [],
    () => ({ nested: { deeper: [1, { x: 'y' }] } }), () => 'x'.repeat(r.pick([129, 257, 2049, 70_000])),
    () => r.pick(INJECTIONS), () => r.pick(UNICODE), () => r.pick(BAD_URLS),
    () => (s.maximum !== undefined ? s.maximum + 1 : 'not-a-number'), () => (s.minimum !== undefined ? s.minimum - 1 : '-1'),
    () => (s.maxLength !== undefined ? 'y'.repeat(s.maxLength + 1) : 'z'.repeat(5000)),
    () => (s.type === 'array' ? Array.from({ length: (s.maxItems ?? 100) + 1 }, () => 'a') : ['a']),
    () => '2026-13-45T99:99:99Z', () => String(r.int(-5, 5)),
  ])();
}

/** Percent-encodes, and sends a lone surrogate (which has no UTF-8 form) as the bytes of one. */
const encode = (value: string) => {
  try {
    return encodeURIComponent(value);
  } catch {
    return '%ED%A0%BD';
  }
};
const encodeQuery = (entries: [string, string][]) => entries.map(([k, v]) => `${encode(k)}=${encode(v)}`).join('&');

export function operationsOf(doc: OpenApiDocument): FuzzOperation[] {
  const out: FuzzOperation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) out.push({ method: method.toUpperCase(), path, op: op as unknown as Operation });
  }
  return out;
}

export interface Credentials { own: string[]; foreign: string[] }

/** One request for `operation`, broken (or not) in one way chosen by the seed. */
export function fuzzRequest(operation: FuzzOperation, r: Random, ids: FuzzIds, credentials: Credentials): FuzzRequest {
  const kind = r.pick(['valid', 'valid', 'valid', 'boundary', 'param', 'body', 'encoding', 'injection', 'unicode', 'unknown-field', 'method', 'content-type', 'foreign', 'foreign-credential', 'no-credential', 'bogus-credential', 'not-json', 'huge-body']);
  const { op, path } = operation;
  let method = operation.method;
  const params = op.parameters ?? [];
  // Path: own ids by the resource they name; foreign or random ones for the probes.
  let url = path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    const resource = resourceOf(path, name);
    const own = ids.own[resource] ?? [];
    const foreign = ids.foreign[resource] ?? [];
    if (kind === 'foreign' && foreign.length) return encode(r.pick(foreign));
    if (kind === 'encoding') return r.pick(BAD_ENCODINGS);
    if (kind === 'param') return encode(String(r.pick(['not-a-uuid', '0', '', 'a'.repeat(r.pick([37, 129, 600])), randomUuid(r).toUpperCase(), `${randomUuid(r)}x`])) || 'x');
    if (kind === 'injection') return encode(r.pick(INJECTIONS));
    const environment = name === 'environment' ? [validString(params.find((p) => p.name === name)?.schema ?? {}, r, name)] : [];
    return encode(r.pick([...own, ...environment, ...(own.length ? [] : [randomUuid(r)])]) ?? randomUuid(r));
  });
  // Query string.
  const query: [string, string][] = [];
  for (const p of params.filter((q) => q.in === 'query')) {
    if (!p.required && !r.chance(0.5)) continue;
    let value: unknown = validValue(p.schema, r, p.name);
    if (p.name === 'site_id') value = r.pick(ids.own.site_id ?? [randomUuid(r)]);
    if (p.name === 'site_id' && kind === 'foreign') value = r.pick(ids.foreign.site_id ?? [randomUuid(r)]);
    if (kind === 'param' && r.chance(0.5)) value = hostileValue(p.schema, r);
    if (kind === 'boundary') value = p.schema?.maximum ?? p.schema?.minimum ?? (p.schema?.maxLength ? 'b'.repeat(p.schema.maxLength) : value);
    if (kind === 'injection' && r.chance(0.5)) value = r.pick(INJECTIONS);
    if (kind === 'unicode' && r.chance(0.5)) value = r.pick(UNICODE);
    query.push([p.name, typeof value === 'string' ? value : JSON.stringify(value)]);
  }
  if (kind === 'param' && r.chance(0.3)) query.push(['limit', r.pick(['-1', '0', '99999999999999999999', 'abc', ''])]);
  let search = query.length ? `?${encodeQuery(query)}` : '';
  if (kind === 'encoding' && r.chance(0.5)) search = `?${r.pick(['a=%FF', 'days=%', 'site_id=%E0%A4%A', 'x=%zz&limit=1'])}`;
  url += search;

  // Body.
  const headers: Record<string, string> = {};
  let payload: string | undefined;
  const bodySchema = op.requestBody?.content?.['application/json']?.schema;
  if (bodySchema || ['POST', 'PATCH', 'PUT'].includes(method)) {
    let body: unknown = validValue(bodySchema, r);
    if (body && typeof body === 'object' && !Array.isArray(body)) {
      const record = body as Record<string, unknown>;
      const keys = Object.keys((bodySchema?.properties ?? {}) as object);
      if (record.site_id !== undefined || keys.includes('site_id')) record.site_id = r.pick(kind === 'foreign' ? ids.foreign.site_id ?? [] : ids.own.site_id ?? []);
      const key = keys.length ? r.pick(keys) : 'field';
      if (kind === 'body') record[key] = hostileValue(bodySchema?.properties?.[key], r);
      if (kind === 'boundary') record[key] = hostileValue(bodySchema?.properties?.[key], r);
      if (kind === 'injection') record[key] = r.pick(INJECTIONS);
      if (kind === 'unicode') record[key] = r.pick(UNICODE);
      if (kind === 'unknown-field') record[`unknown_${r.int(0, 9)}`] = 1;
      if (kind === 'body' && r.chance(0.3) && bodySchema?.required?.length) delete record[r.pick(bodySchema.required as string[])];
    } else if (kind === 'body') body = hostileValue(bodySchema, r);
    payload = JSON.stringify(body);
    if (kind === 'not-json') payload = r.pick(['{', '{"a":', 'nul', '[1,2', '{"a":1}}', "{'a':1}", '\u0000']);
    if (kind === 'huge-body') payload = JSON.stringify({ blob: 'h'.repeat(70 * 1024) });
    headers['content-type'] = 'application/json';
  }
  if (kind === 'content-type') {
    headers['content-type'] = r.pick(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', 'application/json; charset=latin1', 'garbage']);
    payload ??= 'a=1';
  }
  if (kind === 'method') method = r.pick(METHODS.filter((m) => m !== operation.method));

  // Credential.
  let credential: FuzzRequest['credential'] = 'own';
  if (kind === 'no-credential') credential = 'none';
  else if (kind === 'foreign-credential') credential = 'foreign';
  else if (kind === 'bogus-credential') credential = 'bogus';
  if (credential === 'own') headers.authorization = `Bearer ${r.pick(credentials.own)}`;
  if (credential === 'foreign') headers.authorization = `Bearer ${r.pick(credentials.foreign)}`;
  if (credential === 'bogus') headers.authorization = r.pick(['Bearer svc_sec_' + 'A'.repeat(40), 'Bearer eyJhbGciOiJub25lIn0.e30.', 'Basic dXNlcjpwYXNz', 'Bearer', 'Bearer ' + 'x'.repeat(5000), `Bearer ${r.pick(INJECTIONS.filter((i) => /^[\x20-\x7e]+$/.test(i)))}`]);
  // Only the operation's own method and path keep naming it (a changed method is a probe of the router).
  return { operation: method === operation.method ? operation : undefined, kind, method, url, headers, payload, credential };
}
