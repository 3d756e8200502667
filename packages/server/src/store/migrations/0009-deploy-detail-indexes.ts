// Indexes for one deploy's detail (GET /v1/query/deploys/{id}, the MCP deploy check) (issue 17).
//
// ux_issues_site_first_seen: the issues first seen within 48 hours after the deploy,
// `site_id = ? and first_seen_at in [deployed_at, +48 h)`. Without it SQLite read every issue
// of the site (24 ms for a site of 3,700 issues at 1M signals) to test first_seen_at.
// issue_verifications_deploy: the verifications the deploy started, `deploy_id = ?`, which had
// no index and so were found from the site's issues instead.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('ux_issues_site_first_seen').on('ux_issues').columns(['site_id', 'first_seen_at']).execute();
  await db.schema.createIndex('issue_verifications_deploy').on('issue_verifications').column('deploy_id').execute();
}
