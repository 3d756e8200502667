// The signal types a clip is sent for: tiers 1 (direct friction) and 2 (flow) of DOMAIN.md
// section 1. Tier 3 (ambient: a restless cursor, jerky scrolling), revenue and custom types
// are too common or too vague to be worth a recording.
export const CLIP_TYPES = new Set([
  'active_funnel_rejection', 'dead_end_submit', 'layout_shift_rage', 'empty_page_hold', 'rage_click', 'error_recovery_loop',
  'oauth_dead_end', 'silent_failure_retry', 'overlay_dismiss_struggle', 'error_encounter', 'form_abandonment',
  'form_validation_loop', 'reload_retry', 'disabled_element_attempt', 'focus_trap', 'accidental_click_bounce', 'dead_click',
  'u_turn_navigation', 'information_maze', 'multi_step_reset', 'close_click_reversal', 'form_restart', 'load_abandonment',
  'fixed_control_collision', 'query_thrashing', 'filter_spiral', 'tab_thrash', 'form_friction', 'copy_paste_rework',
  'repeat_form_input', 'bulk_action_miss', 'sticky_obstruction_click', 'post_action_anxiety', 'settings_hop', 'false_swipe',
  'keyboard_nav_frustration',
]);
