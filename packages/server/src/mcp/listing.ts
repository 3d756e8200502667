// What tools/list shows of a tool's schemas, trimmed so that the whole listing fits a model's
// context (docs/mcp.md, "Token budgets": under 6k tokens with the write tools): arguments keep
// their types, closed lists, bounds, defaults and a short description, said once: the
// arguments every tool shares are described in the server's instructions, not in each tool;
// output schemas keep the shape an assistant reads (the top-level fields with their types and
// closed lists of a few values) without descriptions, which the tool's own description already
// gives. Arguments are still checked against the full route schemas (arguments.ts), and
// answers still cleaned to the full output schema (tool-kit.ts): the trimmed schemas are
// looser, never stricter, so the SDK client's check of structuredContent still holds.

import { ANSWER_SHAPES, answerArguments } from './answer-size.ts';

type Schema = Record<string, unknown> & {
  type?: string | string[]; anyOf?: Schema[]; oneOf?: Schema[]; allOf?: Schema[]; const?: unknown; enum?: unknown[];
  properties?: Record<string, Schema>; items?: Schema; description?: string;
};

/**
 * Arguments many tools take, listed without a description: the server's instructions
 * (server.ts, sent once at initialize) describe them, so the listing does not repeat them in
 * every tool. A tool whose argument means something else says so in its own `argumentNotes`.
 */
export const SHARED_ARGUMENTS: readonly string[] = ['site_id', 'page', 'from', 'to', 'offset', 'limit', 'device', 'detail'];

/** Argument maxima at or above this are not listed. */
const HUGE = 1_000_000;
/** Output enums longer than this are left to the tool's description. */
const ENUM_MAX = 8;
/** Output fields are shown this deep (the root's fields are 1; array items sit at their array's depth). */
const OUTPUT_DEPTH = 1;

const variantsOf = (s: Schema): Schema[] => s.anyOf ?? s.oneOf ?? [];

/** The JSON types a schema takes, through unions and literals; null when some variant takes anything. */
function typesOf(s: Schema): string[] | null {
  if (s.type !== undefined) return Array.isArray(s.type) ? s.type : [s.type];
  if (s.const !== undefined) return [s.const === null ? 'null' : typeof s.const];
  const variants = variantsOf(s);
  if (variants.length === 0) return null;
  const all = new Set<string>();
  for (const v of variants) {
    const t = typesOf(v);
    if (t === null) return null;
    t.forEach((x) => all.add(x));
  }
  return [...all];
}

/** A closed list of values (an enum, or a union of literals, null aside), or null. */
function closedValues(s: Schema): unknown[] | null {
  if (Array.isArray(s.enum)) return s.enum;
  if (s.const !== undefined) return [s.const];
  const variants = variantsOf(s).filter((v) => v.type !== 'null');
  if (variants.length === 0) return null;
  const values: unknown[] = [];
  for (const v of variants) {
    const c = closedValues(v);
    if (c === null) return null;
    values.push(...c);
  }
  return values;
}

const typeField = (types: string[]) => (types.length === 1 ? types[0] : types);

/** The object variant of a schema (itself, or the one object member of a nullable union). */
function objectPart(s: Schema): Schema | null {
  if (s.properties) return s;
  // An intersection (allOf) is one object with every part's fields.
  if (s.allOf) return { properties: Object.assign({}, ...s.allOf.map((part) => objectPart(part)?.properties ?? {})) };
  const objects = variantsOf(s).filter((v) => v.properties);
  return objects.length === 1 ? objects[0] : null;
}

function arrayItems(s: Schema): Schema | null {
  if (s.items) return s.items;
  const arrays = variantsOf(s).filter((v) => v.items);
  return arrays.length === 1 ? arrays[0].items! : null;
}

function outputNode(s: Schema, depth: number): Schema {
  const types = typesOf(s);
  if (types === null) return {};
  const out: Schema = { type: typeField(types) };
  const values = closedValues(s);
  if (values !== null && values.length <= ENUM_MAX && types.every((t) => t === 'string' || t === 'null')) {
    out.enum = variantsOf(s).some((v) => v.type === 'null') && !values.includes(null) ? [...values, null] : values;
  }
  const object = objectPart(s);
  if (object && depth < OUTPUT_DEPTH) {
    out.properties = Object.fromEntries(Object.entries(object.properties!).map(([k, v]) => [k, outputNode(v, depth + 1)]));
  }
  const items = arrayItems(s);
  if (items) {
    const item = outputNode(items, depth);
    // An array of objects says no more with `items: {type: object}`; items of a closed list or a scalar type do.
    if (Object.keys(item).length > 0 && !(Object.keys(item).length === 1 && item.type === 'object')) out.items = item;
  }
  return out;
}

/**
 * Fields of an answer's root the listing leaves out: bookkeeping every record carries (the site
 * the caller named, when a row was written), which tells an assistant nothing about the tool.
 */
export const UNLISTED_FIELDS: readonly string[] = ['site_id', 'created_at', 'updated_at'];

/** An output schema as listed: the root's fields, and theirs, with types and short closed lists. */
export function listedOutput(schema: Record<string, unknown>): { type: 'object'; properties?: Record<string, object> } {
  const root = schema as Schema;
  const fields = Object.entries(objectPart(root)?.properties ?? {}).filter(([k]) => !UNLISTED_FIELDS.includes(k));
  const properties = Object.fromEntries(fields.map(([k, v]) => [k, outputNode(v, 1)]));
  return { type: 'object', properties };
}

const escape = (v: string) => v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A description without what the schema beside it already says: the list of allowed values
 * ("status: open, triaged or resolved") and the bounds in brackets ("(1 to 90, default 7)").
 */
export function shortDescription(description: string, values: unknown[] | null): string {
  let d = description;
  const words = (values ?? []).filter((v): v is string => typeof v === 'string' && v !== '');
  if (words.length > 1) {
    const one = `(?:${words.map(escape).join('|')})`;
    d = d.replace(new RegExp(`:?\\s*${one}(?:(?:, | or | and |, or )${one})+`, 'g'), '');
  }
  d = d.replace(/\s*\((?:\d[\d,.]* to [\d,.]+|up to \d+|at most \d+)[^)]*\)/g, '');
  d = d.replace(/\s+([,;)])/g, '$1').replace(/\(\s*\)/g, '').replace(/\s{2,}/g, ' ').trim();
  // The first sentence says what the argument means; what follows it is fine print the tool's errors teach.
  const cut = d.search(/\. [A-Z]/);
  return cut > 0 ? d.slice(0, cut) : d;
}

/** One argument as listed: its type or closed list, bounds, default and a short description (`note`: the tool's own). */
function inputNode(s: Schema, name?: string, note?: string | null): Schema {
  const out: Schema = {};
  const values = closedValues(s);
  const types = typesOf(s);
  if (values !== null && values.length > 1) {
    out.type = typeField(types ?? ['string']);
    out.enum = values;
  } else if (variantsOf(s).length > 0 && types !== null && types.length > 1) {
    out.anyOf = variantsOf(s).map((v) => inputNode({ ...v, description: undefined }));
  } else if (types !== null) {
    out.type = typeField(types);
  }
  for (const key of ['minimum', 'maximum', 'default', 'minItems', 'maxItems'] as const) if (s[key] !== undefined) out[key] = s[key];
  // A bound no one reaches (a million rows to skip) only costs tokens; the server still checks it.
  if (typeof out.maximum === 'number' && out.maximum >= HUGE) delete out.maximum;
  // Array items are described by the argument that holds them.
  if (s.items) out.items = inputNode({ ...s.items, description: undefined });
  const description = note !== undefined ? note
    : name !== undefined && SHARED_ARGUMENTS.includes(name) ? null
      : s.description === undefined ? null : shortDescription(s.description, values);
  if (description) out.description = description;
  return out;
}

/** How a tool lists an argument instead of the route's description; null: no description (its name and type say it). */
export type ArgumentNotes = Readonly<Record<string, string | null>>;

/** An input schema as listed: every argument trimmed, the required ones and nothing else allowed. */
export function listedInput(schema: { properties: Record<string, object>; required: string[] }, notes: ArgumentNotes = {}) {
  const properties = Object.fromEntries(Object.entries(schema.properties).map(([k, v]) => [k, inputNode(v as Schema, k, notes[k])]));
  return { type: 'object' as const, properties, ...(schema.required.length > 0 ? { required: schema.required } : {}), additionalProperties: false as const };
}

/** A tool's arguments as listed: the route's trimmed, `detail` where the answer is cut, the tool's own default page size. */
export function listedArguments(tool: string, schema: { properties: Record<string, object>; required: string[] }, notes: ArgumentNotes = {}) {
  const unknown = Object.keys(notes).filter((k) => !(k in schema.properties));
  // A note for an argument the tool does not take is a slip in the tool's definition: fail at start, not silently.
  if (unknown.length > 0) throw new Error(`${tool}: argumentNotes name no argument of it: ${unknown.join(', ')}`);
  const listed = listedInput(schema, notes);
  const extra = answerArguments(tool);
  if (extra) listed.properties.detail = inputNode(JSON.parse(JSON.stringify(extra.properties.detail)) as Schema, 'detail');
  const limit = ANSWER_SHAPES[tool]?.limit;
  if (limit !== undefined && listed.properties.limit) listed.properties.limit = { ...listed.properties.limit, default: limit };
  return listed;
}

/**
 * A tool's output schema as listed. Left out: the fields a cut answer adds (`next`, `omitted`:
 * the server's instructions describe them once, for every tool), a field that echoes an
 * argument of the same name (the argument says it once), and, where `fields` is given,
 * every field but those (a write answers a record a read tool lists; a record's lifecycle
 * timestamps and provenance are in the answer, not in the listing). The answer still carries
 * them all, which the listed schema allows (it closes no object).
 */
export function listedAnswer(schema: Record<string, unknown>, args: readonly string[], fields?: readonly string[]) {
  const listed = listedOutput(schema);
  const missing = (fields ?? []).filter((f) => !(f in (listed.properties ?? {})));
  // A field the answer does not have is a slip in the tool's definition: fail at start, not silently.
  if (missing.length > 0) throw new Error(`listedFields name no field of the answer: ${missing.join(', ')}`);
  const kept = Object.entries(listed.properties ?? {}).filter(([k]) => !args.includes(k) && (fields === undefined || fields.includes(k)));
  return { ...listed, properties: Object.fromEntries(kept) };
}

/** The hints that differ from the protocol's defaults (destructive and idempotent say nothing about a read-only tool). */
export function annotationsOf(write: { idempotent: boolean } | undefined) {
  return write === undefined
    ? { readOnlyHint: true, openWorldHint: false }
    : { readOnlyHint: false, destructiveHint: false, idempotentHint: write.idempotent, openWorldHint: false };
}

/**
 * A tool as a credential sees it listed: a site-scoped credential can read only its own site,
 * so the listing leaves `site_id` out for it (a given one is still checked, as on the routes).
 */
export function listingFor<T extends { inputSchema: { properties?: Record<string, unknown>; required?: string[] } }>(listing: T, siteScoped: boolean): T {
  if (!siteScoped || !listing.inputSchema.properties || !('site_id' in listing.inputSchema.properties)) return listing;
  const { site_id: _site, ...properties } = listing.inputSchema.properties;
  const required = listing.inputSchema.required?.filter((f) => f !== 'site_id');
  return { ...listing, inputSchema: { ...listing.inputSchema, properties, ...(required ? { required } : {}) } };
}
