// A tool's arguments checked the way the route checks its request: against the same TypeBox
// schemas (the route's query string, path parameters and body), path ids first (invalid_uuid),
// then each part, with its defaults filled in. A failure is the route's error, code and field,
// said so that it teaches: the allowed values of a closed list, an alert status given for an
// issue (and the other way round), the fields an empty update may give. A number sent as a
// numeric string ("7") is taken as the number, then checked the same way.
import type { TObject } from '@sinclair/typebox';
import { Ajv, type ValidateFunction } from 'ajv';
import formatsModule from 'ajv-formats';
import { AppError } from '../domain/errors.ts';
import { UUID_PATTERN } from '../domain/tenancy.ts';
import { ALERT_STATUSES, ISSUE_STATUSES } from '../domain/statuses.ts';
import { validationError, type ValidationIssue } from '../domain/validation-error.ts';

import type { InputParts } from '../domain/operation.ts';

export type { InputParts };

const PART_ORDER = ['params', 'query', 'body'] as const;
const PART_CONTEXT = { params: 'params', query: 'querystring', body: 'body' } as const;

// ajv-formats is CommonJS: under NodeNext its default import is the module object.
const addFormats = (formatsModule as unknown as { default: (ajv: Ajv) => Ajv }).default;
// Arguments arrive as typed JSON, like a body: no coercion; defaults filled as on the routes.
const ajv = addFormats(new Ajv({ allErrors: false, useDefaults: true, strict: false, coerceTypes: false, removeAdditional: false }));
const compiled = new WeakMap<TObject, ValidateFunction>();

function validatorOf(schema: TObject): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

const fieldsOf = (schema: TObject | undefined) => Object.keys(schema?.properties ?? {});

/** The JSON Schema a tool lists: every part's fields in one object, nothing else allowed. */
export function inputSchemaOf(parts: InputParts): { type: 'object'; properties: Record<string, object>; required: string[]; additionalProperties: false } {
  const properties: Record<string, object> = {};
  const required: string[] = [];
  for (const name of PART_ORDER) {
    const part = parts[name];
    if (!part) continue;
    // A JSON round trip keeps the schema and drops TypeBox's symbol-keyed markers.
    const fields = JSON.parse(JSON.stringify(part.properties)) as Record<string, { default?: unknown }>;
    Object.assign(properties, fields);
    // A field with a default may be left out: the check fills it in, as the route does.
    required.push(...(part.required ?? []).filter((f) => fields[f].default === undefined));
  }
  return { type: 'object', properties, required, additionalProperties: false };
}

/** The checked arguments with defaults filled in, or the error the route would answer. */
export function checkArguments(parts: InputParts, args: Record<string, unknown>): Record<string, unknown> {
  const known = new Set(PART_ORDER.flatMap((name) => fieldsOf(parts[name])));
  for (const field of Object.keys(args)) {
    if (!known.has(field)) throw validationError({ keyword: 'additionalProperties', instancePath: '', params: { additionalProperty: field } });
  }
  for (const field of fieldsOf(parts.params)) {
    const value = args[field];
    if ((field === 'id' || field.endsWith('_id')) && typeof value === 'string' && !UUID_PATTERN.test(value)) {
      throw new AppError('invalid_uuid', `${field} must be a UUID`, { field });
    }
  }
  const input: Record<string, unknown> = {};
  for (const name of PART_ORDER) {
    const part = parts[name];
    if (!part) continue;
    const value = Object.fromEntries(fieldsOf(part).filter((f) => f in args).map((f) => [f, numberFromText(part.properties[f] as Node, structuredClone(args[f]))]));
    const validate = validatorOf(part);
    if (!validate(value)) throw teach(validate.errors![0], part, value, PART_CONTEXT[name]);
    Object.assign(input, value);
  }
  return input;
}

type Node = { type?: unknown; enum?: unknown[]; const?: unknown; anyOf?: Node[] };

/** The JSON types a field's schema takes, through unions. */
const typesOf = (schema: Node): unknown[] => [schema.type, ...(schema.anyOf ?? []).flatMap(typesOf)];

const NUMERIC = /^\s*-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/;

/** "7" where a number is meant is 7 (models often quote numbers); anything else is left to the check. */
function numberFromText(schema: Node | undefined, value: unknown): unknown {
  if (typeof value !== 'string' || !schema || !NUMERIC.test(value)) return value;
  const types = typesOf(schema);
  if (types.includes('string') || !(types.includes('number') || types.includes('integer'))) return value;
  return Number(value);
}

/** The values a closed field allows (an enum, or a union of literals), or null. */
function allowedOf(schema: Node | undefined): string[] | null {
  if (!schema) return null;
  if (Array.isArray(schema.enum)) return schema.enum.map(String);
  if (schema.const !== undefined) return [String(schema.const)];
  if (!schema.anyOf) return null;
  const parts = schema.anyOf.map((s) => (s.type === 'null' ? [] : allowedOf(s)));
  return parts.every((p) => p !== null) ? parts.flat() as string[] : null;
}

const ISSUE_ONLY = new Set<string>(ISSUE_STATUSES.filter((s) => !(ALERT_STATUSES as readonly string[]).includes(s)));
const ALERT_ONLY = new Set<string>(ALERT_STATUSES.filter((s) => !(ISSUE_STATUSES as readonly string[]).includes(s)));

/** The route's error for a failed check, with what to send instead. */
function teach(issue: ValidationIssue, part: TObject, value: Record<string, unknown>, context: string): AppError {
  const error = validationError(issue, context);
  const path = issue.instancePath.split('/').filter(Boolean);
  if (issue.keyword === 'minProperties' && path.length === 0) {
    const fields = fieldsOf(part).filter((f) => f !== 'site_id');
    return new AppError('invalid_input', `nothing to update: give at least one of ${fields.join(', ')}`, { field: 'body', reason: 'nothing to update', fields });
  }
  if (path.length !== 1 || !['const', 'enum', 'anyOf'].includes(issue.keyword)) return error;
  const field = path[0];
  const allowed = allowedOf(part.properties[field] as Node | undefined);
  const given = value[field];
  if (!allowed || typeof given !== 'string') return error;
  const details = { ...error.details, allowed };
  const listed = allowed.join(', ');
  if (field === 'status' && ALERT_ONLY.has(given) && allowed.every((s) => !ALERT_ONLY.has(s))) {
    return new AppError(error.code, `status: "${given}" is an alert status (the alert tools take it), not an issue status; an issue's status is one of ${listed}`, details);
  }
  if (field === 'status' && ISSUE_ONLY.has(given) && allowed.every((s) => !ISSUE_ONLY.has(s))) {
    return new AppError(error.code, `status: "${given}" is an issue status (the issue tools take it), not an alert status; an alert's status is one of ${listed}`, details);
  }
  return new AppError(error.code, `${field}: "${given}" is not one of the allowed values: ${listed}`, details);
}
