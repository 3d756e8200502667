// A tool's arguments checked the way the route checks its request: against the same TypeBox
// schemas (the route's query string, path parameters and body), path ids first (invalid_uuid),
// then each part, with its defaults filled in. A failure is the route's error, code and field.
import type { TObject } from '@sinclair/typebox';
import { Ajv, type ValidateFunction } from 'ajv';
import formatsModule from 'ajv-formats';
import { AppError } from '../domain/errors.ts';
import { UUID_PATTERN } from '../domain/tenancy.ts';
import { validationError } from '../domain/validation-error.ts';

/** The route's input, by part: what the tool's arguments are made of. */
export interface InputParts { params?: TObject; query?: TObject; body?: TObject }

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
    const value = Object.fromEntries(fieldsOf(part).filter((f) => f in args).map((f) => [f, structuredClone(args[f])]));
    const validate = validatorOf(part);
    if (!validate(value)) throw validationError(validate.errors![0], PART_CONTEXT[name]);
    Object.assign(input, value);
  }
  return input;
}
