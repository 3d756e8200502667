// The alert routes' inputs and answers; the services (and the MCP tools) take and return the
// same shapes.
import { Type, type Static } from '@sinclair/typebox';
import { PagingQuery, SiteIdParam } from '../../domain/schema-parts.ts';
import { ALERT_STATUSES } from '../../domain/statuses.ts';

const literals = <T extends readonly string[]>(values: T, description: string) => Type.Union(values.map((v) => Type.Literal(v)), { description });

export const Row = Type.Record(Type.String(), Type.Unknown());

export const ListAlertsQuery = Type.Object({
  site_id: Type.Optional(SiteIdParam),
  status: Type.Optional(literals(ALERT_STATUSES, `Only alerts in this status: ${ALERT_STATUSES.join(', ')} (default: all)`)),
  ...PagingQuery,
});
export type ListAlertsQuery = Static<typeof ListAlertsQuery>;
export const AlertParams = Type.Object({ alert_id: Type.String({ description: 'The alert id (a UUID)' }) });
export const SiteQuery = Type.Object({ site_id: Type.Optional(SiteIdParam) });

export const UpdateAlertBody = Type.Object({
  status: Type.Optional(Type.Union([Type.Literal('acknowledged'), Type.Literal('investigating'), Type.Literal('resolved')], { description: 'The new status: acknowledged, investigating or resolved' })),
  resolved_reason: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: 'Why it was resolved (1 to 2000 characters); only with status resolved' })),
}, { additionalProperties: false, minProperties: 1 });
export type UpdateAlertBody = Static<typeof UpdateAlertBody>;

export const AlertList = Type.Object({ alerts: Type.Array(Row), total: Type.Integer(), offset: Type.Integer(), limit: Type.Integer() });
export const AlertDetail = Type.Intersect([Row, Type.Object({ timeline: Type.Array(Row) })]);
