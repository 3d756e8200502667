// A failed schema check as the contract's error: the field it names and why, `invalid_status`
// for a bad status value. The HTTP routes (Fastify's validation) and the MCP tools (their own
// Ajv run over the same schemas) both answer through this, so a bad argument reads the same.
// Services and ingest that check a value against a compiled TypeBox schema themselves (ingest
// batches, clip uploads, alert rule and integration configs) name its field with firstFailure.
import { AppError, invalidInput } from './errors.ts';

/** One Ajv error object: the parts the mapping reads. */
export interface ValidationIssue { keyword: string; instancePath: string; params: Record<string, unknown>; message?: string }

/** The longest field name an answer repeats: a 60 KiB key is named by its start, not echoed whole. */
const MAX_FIELD_NAME = 128;

/** A field's path as an answer names it, cut short (with an ellipsis) past MAX_FIELD_NAME characters. */
export const fieldName = (path: string) => (path.length > MAX_FIELD_NAME ? `${path.slice(0, MAX_FIELD_NAME - 1)}…` : path);

/** `context` is the part that was checked (body, querystring, params). */
export function validationError(issue: ValidationIssue, context?: string): AppError {
  const path = issue.instancePath.split('/').filter(Boolean);
  if (issue.keyword === 'required') path.push(String(issue.params.missingProperty));
  if (issue.keyword === 'additionalProperties') {
    const field = fieldName([...path, String(issue.params.additionalProperty)].join('.'));
    return new AppError('invalid_input', `Unknown field ${field}`, { field, reason: 'unknown field' });
  }
  const field = fieldName(path.join('.') || context || 'body');
  // A union of literals fails as "must be equal to constant": say what it means.
  const reason = issue.keyword === 'const' || issue.keyword === 'anyOf' || issue.keyword === 'enum'
    ? 'is not one of the allowed values'
    : issue.message ?? issue.keyword;
  if (path[path.length - 1] === 'status' && (issue.keyword === 'enum' || issue.keyword === 'anyOf' || issue.keyword === 'const' || issue.keyword === 'type')) {
    return new AppError('invalid_status', `status: ${reason}`, { field, reason });
  }
  if (context === 'body' && path.length === 0 && issue.keyword === 'type') {
    return new AppError('invalid_input', 'The body must be a JSON object', { field: 'body', reason });
  }
  return new AppError('invalid_input', `${field}: ${reason}`, { field, reason });
}

/** A compiled TypeBox check (TypeCompiler.Compile): the part firstFailure reads. */
export interface CompiledCheck { Errors(value: unknown): Iterable<{ path: string; message: string }> }

/**
 * The first failing field of a value against a compiled check, as a dotted path, and why. `part`
 * names the value checked: a field inside it is `part.field` and the value as a whole is `part`;
 * the default, `body`, names the request body, whose fields go bare.
 */
export function firstFailure(check: CompiledCheck, value: unknown, part = 'body') {
  for (const error of check.Errors(value)) {
    const path = error.path.split('/').filter(Boolean).join('.');
    return { field: path === '' ? part : part === 'body' ? path : `${part}.${path}`, reason: error.message };
  }
  return { field: part, reason: 'invalid' };
}

/** The 400 invalid_input for a value that failed a compiled check; `note` is added to the reason. */
export function checkFailure(check: CompiledCheck, value: unknown, part = 'body', note = ''): AppError {
  const { field, reason } = firstFailure(check, value, part);
  return invalidInput(field, `${reason}${note}`);
}
