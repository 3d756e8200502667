// Options, defaults and the merge of local options with the site's remote config.
// Signal settings use the same snake_case names locally and in the server's SDK config.
import type { ClipsConfig } from './clips/host.ts';

export type SignalSettings = { enabled?: boolean } & { [threshold: string]: number | boolean | undefined };

export interface InitOptions {
  /** The site's publishable key (svc_pub_...). */
  key: string;
  /** Base URL of the Mallard server; default: the page's origin (the script's origin for the tag). */
  endpoint?: string;
  environment?: string;
  /** Share of sessions recorded, 0..1. */
  sampleRate?: number;
  /** Elements matching (or inside) these never produce signals. */
  ignoreSelectors?: string[];
  /** Per signal type: `enabled` and numeric thresholds. */
  signals?: Record<string, SignalSettings>;
  respectDoNotTrack?: boolean;
  /** 'required': record nothing until setConsent(true); 'granted': consent already given. */
  consent?: 'required' | 'granted';
  /** No persistent visitor id; the session lives in sessionStorage only. */
  cookieless?: boolean;
  appVersion?: string;
  /** Load the site's remote config from the server (default true). */
  remoteConfig?: boolean;
  /** false: never load the clips recorder, whatever the remote config says (only the server turns it on). */
  clips?: boolean;
}

export interface RemoteConfig {
  sample_rate?: number;
  signals?: Record<string, SignalSettings>;
  ignore_selectors?: string[];
  page_groups?: { match: string; page: string }[];
  privacy?: { respect_dnt?: boolean; require_consent?: boolean; cookieless?: boolean };
  clips?: ClipsConfig;
}

/** DOMAIN.md section 2 defaults. */
export const DEFAULT_SIGNALS: Record<string, Record<string, number>> = {
  rage_click: { clicks: 3, window_ms: 2000, radius_px: 30, purposeful_ms: 500 },
  dead_click: { wait_ms: 2000 },
  disabled_element_attempt: { presses: 2, window_ms: 5000 },
  form_restart: { min_fields: 2 },
  form_friction: { failures: 3, leaves: 3, window_ms: 60000 },
  form_validation_loop: { attempts: 3, window_ms: 120000 },
  error_encounter: { after_action_ms: 5000, request_ms: 1000, max_per_session: 20 },
  form_abandonment: { min_fields: 1 },
  u_turn_navigation: { within_ms: 5000 },
  dead_end_submit: { wait_ms: 3000 },
  layout_shift_rage: { after_shift_ms: 1000, min_shift: 0.05 },
  thrash_cursor: { reversals: 6, min_leg_px: 30, window_ms: 1500, quiet_ms: 10000 },
  jerky_scrolling: { reversals: 4, min_leg_viewport: 0.25, window_ms: 3000, quiet_ms: 15000 },
  reload_retry: { within_ms: 30000, quiet_ms: 60000 },
  load_abandonment: { min_ms: 3000 },
  query_thrashing: { searches: 3, window_ms: 60000 },
};

export interface Settings {
  signals: Record<string, Record<string, number> & { enabled: boolean }>;
  ignoreSelectors: string[];
  sampleRate: number;
  respectDnt: boolean;
  requireConsent: boolean;
  cookieless: boolean;
}

/** Defaults, then the remote config, then the page's own options; privacy flags: the stricter wins. */
export function resolveSettings(local: InitOptions, remote: RemoteConfig = {}): Settings {
  const signals: Settings['signals'] = {};
  for (const type of Object.keys(DEFAULT_SIGNALS)) {
    const merged = { enabled: true, ...DEFAULT_SIGNALS[type], ...remote.signals?.[type], ...local.signals?.[type] };
    for (const [name, value] of Object.entries(merged)) {
      if (name !== 'enabled' && (typeof value !== 'number' || !(value >= 0))) (merged as Record<string, unknown>)[name] = DEFAULT_SIGNALS[type][name];
    }
    signals[type] = merged as Settings['signals'][string];
  }
  const rate = local.sampleRate ?? remote.sample_rate ?? 1;
  const privacy = remote.privacy ?? {};
  return {
    signals,
    ignoreSelectors: [...(remote.ignore_selectors ?? []), ...(local.ignoreSelectors ?? [])],
    sampleRate: rate >= 0 && rate <= 1 ? rate : 1,
    respectDnt: !!(local.respectDoNotTrack || privacy.respect_dnt),
    requireConsent: local.consent === 'required' || (!!privacy.require_consent && local.consent !== 'granted'),
    cookieless: !!(local.cookieless || privacy.cookieless),
  };
}
