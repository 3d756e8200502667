// One deploy with the issues related to it: those first seen within 48 hours after it (most
// severe first: what the deploy may have broken leads), then those it verifies.
import type { Kysely } from 'kysely';
import { AppError } from '../../domain/errors.ts';
import { toDeployRecord } from '../../domain/records/deploy.ts';
import { SEVERITIES } from '../../domain/statuses.ts';
import { HOUR_MS } from '../../domain/time.ts';
import type { Database } from '../../store/tables.ts';

const APPEARED_AFTER_MS = 48 * HOUR_MS;

export async function deployWithRelatedIssues(db: Kysely<Database>, siteId: string, id: string) {
  const row = await db.selectFrom('deploys').selectAll().where('site_id', '=', siteId).where('id', '=', id).executeTakeFirst();
  if (!row) throw new AppError('not_found', 'Deploy not found');
  const verified = await db.selectFrom('issue_verifications')
    .innerJoin('ux_issues', 'ux_issues.id', 'issue_verifications.issue_id')
    .select(['ux_issues.id', 'ux_issues.title', 'ux_issues.page', 'ux_issues.type', 'ux_issues.severity', 'ux_issues.status', 'issue_verifications.result'])
    .where('issue_verifications.deploy_id', '=', id).where('ux_issues.site_id', '=', siteId).execute();
  const appeared = await db.selectFrom('ux_issues').select(['id', 'title', 'page', 'type', 'severity', 'status'])
    .where('site_id', '=', siteId).where('first_seen_at', '>=', row.deployed_at).where('first_seen_at', '<', row.deployed_at + APPEARED_AFTER_MS).execute();
  const seen = new Set(verified.map((v) => v.id));
  const rank = (severity: string) => -SEVERITIES.indexOf(severity as (typeof SEVERITIES)[number]);
  const newest = appeared.filter((a) => !seen.has(a.id)).sort((a, b) => rank(a.severity) - rank(b.severity) || a.title.localeCompare(b.title) || a.id.localeCompare(b.id));
  return {
    ...toDeployRecord(row),
    related_issues: [
      ...newest.map((a) => ({ ...a, relation: 'appeared_after', verification_result: null })),
      ...verified.map((v) => ({ id: v.id, title: v.title, page: v.page, type: v.type, severity: v.severity, status: v.status, relation: 'verification', verification_result: v.result })),
    ],
  };
}
