// A covering index of pageviews per session (issue 17): flows read the pageviews of the 5,000
// most recent multi-page sessions of their window, in each session's order, and the friction
// map those of up to 1,000. Through events_dedupe (site_id, sid, dedupe_key) each pageview was a
// lookup of its row, and every other event of the session was read and thrown away; this index
// holds the pageviews alone, in session order, with the page, so the read touches the index
// only. Partial (type = 'pageview'), so ingest pays for it only on pageviews.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('events_site_sid_pageviews').on('events').columns(['site_id', 'sid', 'occurred_at', 'id', 'page'])
    .where(sql.ref('type'), '=', 'pageview').execute();
}
