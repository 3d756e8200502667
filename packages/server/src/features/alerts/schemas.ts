// The alert routes' schemas.
import { Type, type Static } from '@sinclair/typebox';
import { PagingQuery } from '../../domain/schema-parts.ts';
import { ALERT_STATUSES } from '../../domain/statuses.ts';

const literals = <T extends readonly string[]>(values: T) => Type.Union(values.map((v) => Type.Literal(v)));

export const Row = Type.Record(Type.String(), Type.Unknown());

export const ListAlertsQuery = Type.Object({ site_id: Type.Optional(Type.String({ maxLength: 64 })), status: Type.Optional(literals(ALERT_STATUSES)), ...PagingQuery });
export type ListAlertsQuery = Static<typeof ListAlertsQuery>;
export const AlertParams = Type.Object({ alert_id: Type.String() });
export const SiteQuery = Type.Object({ site_id: Type.Optional(Type.String({ maxLength: 64 })) });

export const UpdateAlertBody = Type.Object({
  status: Type.Optional(Type.Union([Type.Literal('acknowledged'), Type.Literal('investigating'), Type.Literal('resolved')])),
  resolved_reason: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
}, { additionalProperties: false, minProperties: 1 });
export type UpdateAlertBody = Static<typeof UpdateAlertBody>;
