// The signal registry of DOMAIN.md section 1: weight and tier per type. Weights are resolved
// when a signal is used (scoring, friction map), from this registry merged with the site's
// custom weights; ingest stores only type and confidence.
export type Tier = 1 | 2 | 3 | 'revenue';

const TIERS: Record<string, [Tier, number]> = {};
function tier(t: Tier, weights: Record<string, number>) {
  for (const [type, weight] of Object.entries(weights)) TIERS[type] = [t, weight];
}

tier(1, {
  active_funnel_rejection: 38, dead_end_submit: 30, layout_shift_rage: 28, empty_page_hold: 26, rage_click: 25,
  error_recovery_loop: 24, oauth_dead_end: 24, silent_failure_retry: 22, overlay_dismiss_struggle: 22,
  error_encounter: 20, form_abandonment: 20, form_validation_loop: 20, reload_retry: 20,
  disabled_element_attempt: 20, focus_trap: 20, accidental_click_bounce: 18, dead_click: 12,
});
tier(2, {
  u_turn_navigation: 18, information_maze: 18, multi_step_reset: 18, close_click_reversal: 18, form_restart: 16,
  load_abandonment: 16, fixed_control_collision: 16, query_thrashing: 15, filter_spiral: 15, tab_thrash: 15,
  form_friction: 14, copy_paste_rework: 14, repeat_form_input: 14, bulk_action_miss: 14, sticky_obstruction_click: 14,
  post_action_anxiety: 13, settings_hop: 12, false_swipe: 12, keyboard_nav_frustration: 10,
});
tier(3, {
  thrash_cursor: 15, help_hunt: 14, confidence_collapse: 13, target_near_miss: 12, user_confusion_idle: 12,
  thrash_hover: 10, text_selection_thrash: 10, jerky_scrolling: 9, viewport_thrashing: 9, visibility_thrashing: 9,
  passive_drift: 8, scroll_depth_abandon: 6,
});
tier('revenue', { value_collapse_downgrade: 40, layout_exhaustion_settling: 34 });

/** Weight of any type the registry does not know (custom signal() calls, future detectors). */
export const FALLBACK_WEIGHT = 10;

export const KNOWN_SIGNAL_TYPES: readonly string[] = Object.keys(TIERS);

/** The only types that make heatmap points. */
export const HEATMAP_SIGNAL_TYPES = ['rage_click', 'dead_click', 'disabled_element_attempt'] as const;

export function tierOf(type: string): Tier | null {
  return TIERS[type]?.[0] ?? null;
}

/** Tier-1 and tier-2 types decorate the edges of the friction journey map; others do not. */
export function isEdgeDecorator(type: string): boolean {
  const t = tierOf(type);
  return t === 1 || t === 2;
}

export type WeightOverrides = Readonly<Record<string, number>>;

/** Resolves weights with a site's overrides merged over the registry; 0 switches a type off. */
export function weightResolver(overrides: WeightOverrides = {}) {
  return (type: string): number => {
    const custom = overrides[type];
    if (typeof custom === 'number' && Number.isFinite(custom) && custom >= 0) return custom;
    return TIERS[type]?.[1] ?? FALLBACK_WEIGHT;
  };
}

/** Confidence as DOMAIN.md fixes it: missing or NaN is 1, anything else clamped to [0, 1]. */
export function clampConfidence(cf: unknown): number {
  if (typeof cf !== 'number' || Number.isNaN(cf)) return 1;
  return Math.min(1, Math.max(0, cf));
}
