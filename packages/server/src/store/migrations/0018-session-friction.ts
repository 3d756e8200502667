// Sessions search (issue 29, GET /v1/query/sessions) at a bounded cost. Each session row keeps
// its friction weight, sum(weight x cf) of its signals (DOMAIN.md section 1, the weights the
// scoring uses), maintained by ingest as it merges a batch into the row (ingest/session.ts),
// so the search filters and sorts on a column instead of aggregating a site's signals:
//   sessions_site_started   (site_id, first_seen_at): the window of every search, and the
//                           `start` sort, read as one index range;
//   sessions_site_friction  (site_id, friction_weight, first_seen_at): the default `friction`
//                           sort walks it from the top and stops after offset + limit rows in
//                           the window, without sorting the window; `min_friction` is its range.
// Backfill: every stored session's weight from its signals, with the registry below and the
// site's own signal_weights (the production SDK config's, as scoring reads them). The registry
// is written out, not imported: a migration states what it did when it ran.
import { sql, type Kysely } from 'kysely';

const REGISTRY: Record<string, number> = {
  active_funnel_rejection: 38, dead_end_submit: 30, layout_shift_rage: 28, empty_page_hold: 26, rage_click: 25,
  error_recovery_loop: 24, oauth_dead_end: 24, silent_failure_retry: 22, overlay_dismiss_struggle: 22,
  error_encounter: 20, form_abandonment: 20, form_validation_loop: 20, reload_retry: 20,
  disabled_element_attempt: 20, focus_trap: 20, accidental_click_bounce: 18, dead_click: 12,
  u_turn_navigation: 18, information_maze: 18, multi_step_reset: 18, close_click_reversal: 18, form_restart: 16,
  load_abandonment: 16, fixed_control_collision: 16, query_thrashing: 15, filter_spiral: 15, tab_thrash: 15,
  form_friction: 14, copy_paste_rework: 14, repeat_form_input: 14, bulk_action_miss: 14, sticky_obstruction_click: 14,
  post_action_anxiety: 13, settings_hop: 12, false_swipe: 12, keyboard_nav_frustration: 10,
  thrash_cursor: 15, help_hunt: 14, confidence_collapse: 13, target_near_miss: 12, user_confusion_idle: 12,
  thrash_hover: 10, text_selection_thrash: 10, jerky_scrolling: 9, viewport_thrashing: 9, visibility_thrashing: 9,
  passive_drift: 8, scroll_depth_abandon: 6, value_collapse_downgrade: 40, layout_exhaustion_settling: 34,
};
const FALLBACK_WEIGHT = 10;

/** The weight of a signal type as SQL: the site's overrides over the registry, else the fallback. */
function weightCase(overrides: Record<string, unknown>) {
  const weights: Record<string, number> = { ...REGISTRY };
  for (const [type, w] of Object.entries(overrides)) if (typeof w === 'number' && Number.isFinite(w) && w >= 0) weights[type] = w;
  const arms = Object.entries(weights).map(([type, w]) => sql`when ${sql.lit(type)} then ${sql.lit(w)}`);
  return sql`(case signal_type ${sql.join(arms, sql` `)} else ${sql.lit(FALLBACK_WEIGHT)} end)`;
}

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('sessions').addColumn('friction_weight', 'double precision', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.createIndex('sessions_site_started').on('sessions').columns(['site_id', 'first_seen_at']).execute();
  await db.schema.createIndex('sessions_site_friction').on('sessions').columns(['site_id', 'friction_weight', 'first_seen_at']).execute();

  const configs = await db.selectFrom('sdk_configs').select(['site_id', 'config']).where('environment', '=', 'production').execute();
  const overrides = new Map<string, Record<string, unknown>>();
  for (const c of configs) {
    try {
      const weights = (JSON.parse(c.config) as { signal_weights?: Record<string, unknown> | null }).signal_weights;
      if (weights && typeof weights === 'object') overrides.set(c.site_id, weights);
    } catch {
      // A config that does not parse has no overrides the engine could read either.
    }
  }
  const backfill = (weights: Record<string, unknown>) => sql`update sessions set friction_weight = coalesce((
    select sum(${weightCase(weights)} * confidence) from signals where signals.site_id = sessions.site_id and signals.sid = sessions.sid), 0)`;
  // Sites with their own weights one by one; every other site with the registry in one statement.
  for (const [siteId, weights] of overrides) await sql`${backfill(weights)} where site_id = ${siteId}`.execute(db);
  const custom = [...overrides.keys()];
  if (custom.length === 0) await backfill({}).execute(db);
  else await sql`${backfill({})} where site_id not in (${sql.join(custom)})`.execute(db);
}
