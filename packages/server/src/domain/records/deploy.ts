// The deploy as the API returns it (list, detail, page detail, MCP context); the
// deploy.recorded webhook event carries the same record.
import { Type, type Static } from '@sinclair/typebox';
import { IsoTime, Nullable, NullableIsoTime, OneOf, Uuid } from '../schema-parts.ts';
import { iso, isoOrNull } from '../../clock.ts';
import type { DeploysTable } from '../../store/tables.ts';

const PageSnapshot = Type.Object({ page: Type.String(), score: Type.Number(), active_users: Type.Integer() });

export const DeployRecord = Type.Object({
  id: Uuid,
  site_id: Uuid,
  version: Type.String(),
  environment: Type.String(),
  deployed_at: IsoTime,
  commit_sha: Nullable(Type.String()),
  author: Nullable(Type.String()),
  pr_number: Nullable(Type.Integer()),
  provider: Nullable(Type.String()),
  url: Nullable(Type.String()),
  description: Nullable(Type.String()),
  confusion_before: Type.Number({ description: 'Site overall score when the deploy was recorded' }),
  confusion_after: Nullable(Type.Number({ description: 'Site overall score from the deploy on; null until 5 minutes of post-deploy data' })),
  delta: Nullable(Type.Number({ description: 'after - before; positive means worse' })),
  pages_before: Type.Array(PageSnapshot),
  pages_after: Nullable(Type.Array(PageSnapshot)),
  after_computed_at: NullableIsoTime,
  created_at: IsoTime,
  score_scale: OneOf(['calibrated', 'legacy'], 'calibrated: scores on the 0-100 scale of docs/scoring.md; legacy: recorded before it and not recomputable (its after-scores are on the first rule\'s scale)'),
});
export type DeployRecord = Static<typeof DeployRecord>;

export function toDeployRecord(row: DeploysTable): DeployRecord {
  return {
    id: row.id, site_id: row.site_id, version: row.version, environment: row.environment,
    deployed_at: iso(row.deployed_at), commit_sha: row.commit_sha, author: row.author, pr_number: row.pr_number,
    provider: row.provider, url: row.url, description: row.description,
    confusion_before: row.confusion_before, confusion_after: row.confusion_after, delta: row.delta,
    pages_before: JSON.parse(row.pages_before), pages_after: row.pages_after ? JSON.parse(row.pages_after) : null,
    after_computed_at: isoOrNull(row.after_computed_at), created_at: iso(row.created_at),
    score_scale: row.score_scale,
  };
}
