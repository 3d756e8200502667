// Schema pieces shared by many routes, defined once.
import { Kind, Type, TypeRegistry, type TSchema } from '@sinclair/typebox';
import { ALERT_SEVERITIES, ALERT_STATUSES, DUCK_STATES, ISSUE_STATUSES, SEVERITIES, TRENDS } from './statuses.ts';

export const Uuid = Type.String({ description: 'UUID', examples: ['01936f4e-8a4c-7b1a-9f3e-5a2b1c0d9e8f'] });
export const IsoTime = Type.String({ format: 'date-time', description: 'ISO 8601, UTC', examples: ['2026-11-02T12:00:00.000Z'] });
export const NullableIsoTime = Type.Union([IsoTime, Type.Null()]);
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

// A kind of its own, so TypeBox's Value functions (the MCP tools clean answers with them) can
// check it; the document shows a plain string `enum`.
TypeRegistry.Set<{ enum: string[] }>('StringEnum', (schema, value) => typeof value === 'string' && schema.enum.includes(value));

/**
 * A closed vocabulary as a string enum, built from the list the code itself uses so the two
 * cannot drift. Typed as a string: the store's columns are, and the contract tests check the values.
 */
export const OneOf = (values: readonly string[], description?: string) =>
  Type.Unsafe<string>({ [Kind]: 'StringEnum', type: 'string', enum: [...values], ...(description ? { description } : {}) });

/** A map whose keys are data (a table's columns, a config's fields): open on purpose, said so in the document. */
export const OpenRecord = (description: string) => Type.Record(Type.String(), Type.Unknown(), { description });

/** A name-like string: trimmed by the service, never empty, bounded. */
export const Name = Type.String({ minLength: 1, maxLength: 200 });
export const Email = Type.String({ format: 'email', minLength: 3, maxLength: 254 });
export const HttpUrl = Type.String({ minLength: 1, maxLength: 2048, description: 'http or https URL' });

/** The `site_id` every site route takes (query string or body). */
export const SiteIdParam = Type.String({
  maxLength: 64,
  description: 'The site (a UUID). A site-scoped key may omit it (its own site is used); org-level credentials must give it',
});

export const SiteIdQuery = Type.Object({ site_id: Type.Optional(SiteIdParam) });

export const PagingQuery = {
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0, description: 'How many records to skip (0 to 1000000, default 0)' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'Most records returned (1 to 200, default 50)' })),
};

export const Deleted = Type.Object({ id: Type.String(), deleted: Type.Boolean() });

export const TrendEnum = OneOf(TRENDS, 'Against the 7-day baseline: up (more confusion), down (less) or stable');
export const DuckStateEnum = OneOf(DUCK_STATES, 'The duck by score band: calm (0-20), watching (to 40), alert (to 60), flustered (to 80), critical (above 80)');
export const SeverityEnum = OneOf(SEVERITIES, "An issue's severity");
export const IssueStatusEnum = OneOf(ISSUE_STATUSES);
export const AlertSeverityEnum = OneOf(ALERT_SEVERITIES, "An alert's severity");
export const AlertStatusEnum = OneOf(ALERT_STATUSES);

/** A score's breakdown (DOMAIN.md section 3): one row per signal type, largest share first. */
const BreakdownRow = Type.Object({
  signal: Type.String({ description: 'The signal type' }), count: Type.Integer(), weight: Type.Number(), weighted_score: Type.Number(),
  percentage: Type.Integer({ description: 'Rounded share of the weighted total, 0-100' }),
});
export const Breakdown = Type.Array(BreakdownRow);
