// The site's most recent deploys, newest first (page detail, the MCP context).
import type { Kysely } from 'kysely';
import { toDeployRecord, type DeployRecord } from '../../domain/records/deploy.ts';
import type { Database } from '../../store/tables.ts';

export async function recentDeploys(db: Kysely<Database>, siteId: string, limit: number): Promise<DeployRecord[]> {
  const rows = await db.selectFrom('deploys').selectAll().where('site_id', '=', siteId).orderBy('deployed_at', 'desc').limit(limit).execute();
  return rows.map(toDeployRecord);
}
