// Indexes that bound reads which otherwise grow with a site's history (issue 17).
//
// events_site_track: revenue at risk (pipeline/revenue.ts revenueAtRisk, behind
// GET /v1/query/revenue, /recommendations and /mcp/context) reads the last 30 days' conversion
// events, `site_id = ? and type = 'track' and name in (...) and occurred_at in [since, now)`.
// Without it that read walked every event of the site's 30 days through events_site_time to
// find a handful of track events. Partial (type = 'track'), so ingest pays for it only on
// track events, not on every pageview and signal.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('events_site_track').on('events').columns(['site_id', 'name', 'occurred_at'])
    .where(sql.ref('type'), '=', 'track').execute();
}
