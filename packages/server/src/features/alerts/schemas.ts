// The alert routes' inputs and answers; the services (and the MCP tools) take and return the
// same shapes.
import { Type, type Static } from '@sinclair/typebox';
import { AlertRecord } from '../../domain/records/alert.ts';
import { IsoTime, Nullable, OpenRecord, PagingQuery, SiteIdParam, Uuid } from '../../domain/schema-parts.ts';
import { ALERT_STATUSES } from '../../domain/statuses.ts';

const literals = <T extends readonly string[]>(values: T, description: string) => Type.Union(values.map((v) => Type.Literal(v)), { description });

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

export { AlertRecord };
export const AlertList = Type.Object({ alerts: Type.Array(AlertRecord), total: Type.Integer(), offset: Type.Integer(), limit: Type.Integer() });

const TimelineEntry = Type.Object({
  id: Uuid,
  kind: Type.String({ description: 'fired, still_firing, renotified, notification_queued, or the status a person set (acknowledged, investigating, resolved)' }),
  message: Type.String(),
  // What an entry records depends on its kind, so the map stays open.
  details: Nullable(OpenRecord('Facts of this kind of entry: condition_value, threshold and score when fired or still firing; channels and event when a notification was queued')),
  created_at: IsoTime,
});
export const AlertDetail = Type.Object({ ...AlertRecord.properties, timeline: Type.Array(TimelineEntry, { description: 'The incident, oldest first' }) });
