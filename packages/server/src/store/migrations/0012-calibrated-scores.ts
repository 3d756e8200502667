// The calibrated score scale (DOMAIN.md section 3, revised). Scores stored under the first rule
// (score = raw, clamped to 100; the multiplier by the COUNT of affected users) are recomputed
// from what their rows hold, so no chart mixes the two scales:
// - score_history, page_scores and site_score_history rows hold raw, active and affected users:
//   raw becomes raw / old multiplier x new multiplier (by the affected SHARE), and the score
//   100 x (1 - e^(-raw / 10)). A page row's duck state follows its new score.
// - A site row's overall score is the active-user-weighted mean of its cycle's page rows; a
//   cycle where every page was stale has no page rows, and keeps the previous cycle's overall
//   (what stale pages carried). Stale pages of a partly stale cycle are not in its mean.
// - A deploy's before snapshot was page_scores at its recording: each page takes its latest
//   history row at or before then. Its after-scores come from signals: deploys still tracked
//   (the last 48 hours) are emptied for the next cycle to fill on the new scale; older ones
//   cannot be recomputed here and are marked `score_scale = 'legacy'` (the deploy record says so).
// Deviations and trends already stored stay as they were computed; new cycles compute them
// against the recomputed raw history.
// Scale constants are written out here, not imported: a migration states what it did when it ran.
import { PostgresAdapter, sql, type Kysely, type RawBuilder } from 'kysely';

const TRACKED_MS = 48 * 60 * 60 * 1000;

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const round = (expr: RawBuilder<number>, digits: number) => postgres
    ? sql<number>`round((${expr})::numeric, ${sql.lit(digits)})::double precision`
    : sql<number>`round(${expr}, ${sql.lit(digits)})`;
  const oldMultiplier = sql<number>`(case when affected_users >= 50 then 2.5 when affected_users >= 20 then 2.0 when affected_users >= 10 then 1.5 else 1.0 end)`;
  const newMultiplier = sql<number>`(case when active_users <= 0 then 1.0 when affected_users * 100 >= active_users * 50 then 2.5
    when affected_users * 100 >= active_users * 25 then 2.0 when affected_users * 100 >= active_users * 10 then 1.5 else 1.0 end)`;
  const newRaw = round(sql<number>`raw_score / ${oldMultiplier} * ${newMultiplier}`, 4);
  const scoreOf = (raw: RawBuilder<number>) => sql<number>`case when ${raw} > 0 then ${round(sql<number>`100 * (1 - exp(-(${raw}) / 10.0))`, 1)} else 0 end`;

  // Raw first (every row), then the score from the stored raw, as the pipeline computes it.
  for (const table of ['score_history', 'page_scores', 'site_score_history']) {
    await sql`update ${sql.table(table)} set raw_score = ${newRaw}`.execute(db);
  }
  await sql`update score_history set score = ${scoreOf(sql`raw_score`)}`.execute(db);
  await sql`update page_scores set score = ${scoreOf(sql`raw_score`)}`.execute(db);
  await sql`update page_scores set duck_state = case when score <= 20 then 'calm' when score <= 40 then 'watching'
    when score <= 60 then 'alert' when score <= 80 then 'flustered' else 'critical' end`.execute(db);

  const cycleMean = sql<number>`(select sum(h.score * h.active_users) / sum(h.active_users) from score_history h
    where h.site_id = site_score_history.site_id and h.cycle_at = site_score_history.cycle_at and h.active_users > 0)`;
  await sql`update site_score_history set overall_score = coalesce(${round(cycleMean, 1)}, 0)
    where exists (select 1 from score_history h where h.site_id = site_score_history.site_id and h.cycle_at = site_score_history.cycle_at and h.active_users > 0)`.execute(db);
  // Fully stale cycles, oldest first, each from the one before it (already on the new scale).
  const staleCycles = await sql<{ id: string; site_id: string; cycle_at: number | string }>`select id, site_id, cycle_at from site_score_history s
    where not exists (select 1 from score_history h where h.site_id = s.site_id and h.cycle_at = s.cycle_at and h.active_users > 0)
    order by site_id, cycle_at`.execute(db);
  for (const row of staleCycles.rows) {
    const previous = await sql<{ overall_score: number }>`select overall_score from site_score_history
      where site_id = ${row.site_id} and cycle_at < ${row.cycle_at} order by cycle_at desc limit 1`.execute(db);
    await sql`update site_score_history set overall_score = ${previous.rows[0]?.overall_score ?? 0} where id = ${row.id}`.execute(db);
  }

  await db.schema.alterTable('deploys').addColumn('score_scale', 'text', (c) => c.notNull().defaultTo('calibrated')).execute();
  const deploys = await sql<{ id: string; site_id: string; deployed_at: number | string; created_at: number | string; pages_before: string; pages_after: string | null }>`
    select id, site_id, deployed_at, created_at, pages_before, pages_after from deploys`.execute(db);
  const now = Date.now();
  for (const deploy of deploys.rows) {
    const before = JSON.parse(deploy.pages_before) as { page: string; score: number; active_users: number }[];
    let complete = true;
    for (const snapshot of before) {
      const row = await sql<{ score: number }>`select score from score_history where site_id = ${deploy.site_id} and page = ${snapshot.page}
        and cycle_at <= ${deploy.created_at} order by cycle_at desc limit 1`.execute(db);
      if (row.rows[0]) snapshot.score = Number(row.rows[0].score);
      else complete = false;
    }
    before.sort((a, b) => b.score - a.score || b.active_users - a.active_users || a.page.localeCompare(b.page));
    const users = before.reduce((n, p) => n + p.active_users, 0);
    const confusionBefore = users ? Math.round((before.reduce((sum, p) => sum + p.score * p.active_users, 0) / users) * 10) / 10 : 0;
    const tracked = Number(deploy.deployed_at) >= now - TRACKED_MS;
    const legacy = !complete || (!tracked && deploy.pages_after !== null);
    await db.updateTable('deploys').set({
      pages_before: JSON.stringify(before), confusion_before: confusionBefore,
      // A tracked deploy's after-scores are emptied for the next cycle; an old one keeps its delta, marked.
      ...(tracked ? { confusion_after: null, pages_after: null, delta: null, after_computed_at: null } : {}),
      score_scale: legacy ? 'legacy' : 'calibrated',
    }).where('id', '=', deploy.id).execute();
  }
}
