// The settings forms check a body against the JSON Schema the server publishes for the route
// (GET /v1/openapi.json), so the bounds are the server's own and never copied here. This is
// the small part of JSON Schema those documents use; every failure is kept, by field, so each
// control can show its own message. The API remains the judge: its 400 names the field too.

export interface JsonSchema {
  type?: string;
  anyOf?: JsonSchema[];
  enum?: unknown[];
  minimum?: number; maximum?: number;
  minLength?: number; maxLength?: number; pattern?: string;
  minItems?: number; maxItems?: number; uniqueItems?: boolean; items?: JsonSchema;
  properties?: Record<string, JsonSchema>; required?: string[];
  additionalProperties?: boolean | JsonSchema;
  minProperties?: number; maxProperties?: number;
  description?: string;
}

/** One failure: the field as the API names it (dotted path, `body` for the whole) and why. */
export interface Issue { field: string; message: string }

const typeOf = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

function typeMatches(type: string, value: unknown): boolean {
  if (type === 'integer') return typeof value === 'number' && Number.isInteger(value);
  if (type === 'number') return typeof value === 'number' && Number.isFinite(value);
  return typeOf(value) === type;
}

const TYPE_WORDS: Record<string, string> = { integer: 'a whole number', number: 'a number', string: 'text', boolean: 'true or false', array: 'a list', object: 'a set of named values', null: 'empty' };

/** Every way `value` fails `schema`, each with the dotted path of the field it concerns. */
export function checkSchema(schema: JsonSchema, value: unknown, path = ''): Issue[] {
  const field = path || 'body';
  if (schema.anyOf) {
    const tries = schema.anyOf.map((s) => checkSchema(s, value, path));
    if (tries.some((t) => t.length === 0)) return [];
    // The variant of the value's own type says the most (a number out of range, not "or null").
    // A union of literals (TypeBox's Union of Literal) reads as one list.
    if (schema.anyOf.every((s) => s.enum)) return [{ field, message: `must be one of ${schema.anyOf.flatMap((s) => s.enum!).join(', ')}` }];
    const own = schema.anyOf.findIndex((s) => s.type !== undefined && (s.type === 'integer' ? 'number' : s.type) === typeOf(value));
    return tries[own >= 0 ? own : 0];
  }
  if (schema.enum && !schema.enum.includes(value)) return [{ field, message: `must be one of ${schema.enum.join(', ')}` }];
  if (schema.type && !typeMatches(schema.type, value)) {
    if (schema.type === 'integer' && typeof value === 'number') return [{ field, message: 'must be a whole number' }];
    return [{ field, message: `must be ${TYPE_WORDS[schema.type] ?? schema.type}` }];
  }
  const issues: Issue[] = [];
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) issues.push({ field, message: `must be at least ${schema.minimum}` });
    if (schema.maximum !== undefined && value > schema.maximum) issues.push({ field, message: `must be at most ${schema.maximum}` });
  }
  if (typeof value === 'string') {
    const length = [...value].length;
    if (schema.minLength !== undefined && length < schema.minLength) issues.push({ field, message: schema.minLength === 1 ? 'must not be empty' : `must be at least ${schema.minLength} characters` });
    if (schema.maxLength !== undefined && length > schema.maxLength) issues.push({ field, message: `must be at most ${schema.maxLength} characters` });
    if (schema.pattern !== undefined && !new RegExp(schema.pattern, 'u').test(value)) issues.push({ field, message: schema.description ? `must be ${schema.description}` : `must match ${schema.pattern}` });
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) issues.push({ field, message: `must hold at least ${schema.minItems}` });
    if (schema.maxItems !== undefined && value.length > schema.maxItems) issues.push({ field, message: `must hold at most ${schema.maxItems}` });
    if (schema.uniqueItems && new Set(value.map((v) => JSON.stringify(v))).size !== value.length) issues.push({ field, message: 'must not repeat an entry' });
    if (schema.items) value.forEach((v, i) => issues.push(...checkSchema(schema.items!, v, `${path ? `${path}.` : ''}${i}`)));
  }
  if (typeOf(value) === 'object') {
    const object = value as Record<string, unknown>;
    const keys = Object.keys(object);
    if (schema.minProperties !== undefined && keys.length < schema.minProperties) issues.push({ field, message: schema.minProperties === 1 ? 'nothing to change' : `must hold at least ${schema.minProperties}` });
    if (schema.maxProperties !== undefined && keys.length > schema.maxProperties) issues.push({ field, message: `must hold at most ${schema.maxProperties}` });
    for (const name of schema.required ?? []) if (!(name in object)) issues.push({ field: `${path ? `${path}.` : ''}${name}`, message: 'is required' });
    for (const key of keys) {
      const at = `${path ? `${path}.` : ''}${key}`;
      const known = schema.properties?.[key];
      if (known) issues.push(...checkSchema(known, object[key], at));
      else if (schema.additionalProperties === false) issues.push({ field: at, message: 'is not a setting this takes' });
      else if (typeof schema.additionalProperties === 'object') issues.push(...checkSchema(schema.additionalProperties, object[key], at));
    }
  }
  return issues;
}

/** The issues grouped by the form control they belong to: `controlOf` maps a field path to a control's key. */
export function issuesByControl(issues: Issue[], controlOf: (field: string) => string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const issue of issues) {
    const control = controlOf(issue.field);
    const detail = issue.field.includes('.') && control !== issue.field ? `${issue.field}: ${issue.message}` : issue.message;
    out[control] = out[control] ? `${out[control]}; ${detail}` : detail;
  }
  return out;
}
