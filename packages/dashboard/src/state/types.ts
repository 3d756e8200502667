// The shapes of the API responses the dashboard reads (fields it does not use are left out).
export interface Site {
  id: string; org_id: string; name: string; url: string; allowed_origins: string[]; created_at: string;
  /** Days of raw data kept for this site; null: the instance's max_retention_days. */
  retention_days: number | null; effective_retention_days: number; max_retention_days: number;
}

export interface Breakdown { signal: string; count: number; weight: number; weighted_score: number; percentage: number }
export interface PageScore {
  page: string; score: number; trend: 'up' | 'down' | 'stable'; duck_state: string; dominant_signal: string | null;
  breakdown: Breakdown[]; active_users: number; affected_users: number; frustrated_users: number; signal_count: number;
  stale: boolean; computed_at: string; window_start: string; window_end: string;
}
export interface Scores {
  site: {
    site_id: string; overall_score: number; overall_trend: 'up' | 'down' | 'stable'; pages: PageScore[]; total_active_users: number; total_affected_users: number;
    /** The window total_active_users and total_affected_users count (null before the first cycle). */
    window_from: string | null; window_to: string | null;
  };
  duck_state: string; duck_label: string;
  /** What set duck_state: the overall score, an active alert, or a page at flustered or worse. */
  duck_reason: 'score' | 'alert' | 'page';
  /** One plain sentence of the state and its reason, the one every face shows. */
  headline: string;
  as_of: string | null;
}
export interface HistoryRow { cycle_at: string; score: number; active_users: number; affected_users: number }
export interface Annotation { id: string; page: string | null; message: string; author: string; created_at: string }
export interface Trends { page: string | null; days: number; history: HistoryRow[]; annotations: Annotation[] }

export type Severity = 'low' | 'medium' | 'high' | 'critical';
export interface Issue {
  id: string; title: string; page: string; element_selector: string; element_label: string | null; type: string;
  severity: Severity; severity_score: number; status: string; assigned_to: string | null;
  /** user_count and session_count: over the last 24 hours (to the latest pipeline cycle). */
  signal_count: number; session_count: number; user_count: number; first_seen_at: string; last_seen_at: string;
  ticket: { url: string; provider: string; key?: string } | null;
  /** Users affected over the last 7 days. */
  users_7d: number;
  /** Monthly revenue at risk in cents; null when not estimated. */
  revenue_at_risk_cents: number | null;
  /** What to fix first, 0-100, and the words that explain it (the list's default order). */
  priority: number; priority_reason: string;
  /** Signals a day over the 14 days to the latest cycle, oldest first (list rows). */
  daily_counts?: number[];
}
export interface IssueDetail extends Issue {
  evidence: { signal_id: string; session_id: string; occurred_at: string; label: string | null; confidence: number; rx?: number; ry?: number }[];
  linked_sessions: { session_id: string; started_at: string; ended_at: string | null; entry_page: string; device_type: string | null; converted: boolean }[];
  verifications: { id: string; deploy_version: string | null; result: string; before_count: number; after_count: number; before_rate: number; after_rate: number; started_at: string; decided_at: string | null }[];
  deploy_correlation: { deploy_id: string; version: string; deployed_at: string; delta: number | null; relation: string } | null;
  activity: { id: string; kind: string; actor: string; message: string | null; from_status: string | null; to_status: string | null; created_at: string }[];
}
export interface IssueList { issues: Issue[]; total: number; offset: number; limit: number }

export type AlertStatus = 'fired' | 'acknowledged' | 'investigating' | 'resolved';
export interface Alert {
  id: string; rule_id: string; rule_name: string | null; trigger_type: string; page: string | null; severity: string; status: AlertStatus;
  message: string; condition_value: number | null; threshold: number | null; fired_at: string; resolved_reason: string | null; updated_at: string;
}
export interface AlertDetail extends Alert { timeline: { id: string; kind: string; message: string; created_at: string }[] }

export interface Deploy {
  id: string; version: string; environment: string; deployed_at: string; commit_sha: string | null; author: string | null;
  description: string | null; url: string | null; confusion_before: number | null; confusion_after: number | null; delta: number | null;
  /** legacy: recorded before the calibrated score scale; its after-score and delta are on the old scale. */
  score_scale: 'calibrated' | 'legacy';
}
export interface DeployDetail extends Deploy {
  related_issues: { id: string; title: string; page: string; type: string; severity: Severity; status: string; relation: string; verification_result?: string | null }[];
}

export interface ElementRow {
  element_selector: string; label: string | null; signal_count: number; signals: Record<string, number>; dominant_signal: string; affected_users: number; recommendation: string | null;
  /** The window the counts cover. */
  window_from: string; window_to: string;
}
export interface Budget { rule_id: string; name: string; page_pattern: string | null; target: number; enabled: boolean; period: string; consumed_percent: number; minutes_above: number; days_over: number; status: string }
export interface PageDetail {
  page: string; score: PageScore | null; history: HistoryRow[]; elements: ElementRow[]; active_alerts: Alert[];
  recent_deploys: Deploy[]; annotations: Annotation[]; budgets: Budget[];
}

export interface PageHeatmap { page: string; count: number; points: { vx: number; vy: number; signal: string; el?: string; rx?: number; ry?: number }[] }
export interface ElementHeatmap { page: string; selector: string; count: number; points: { rx: number; ry: number; signal: string }[] }

export interface FrictionEdge {
  from: string; to: string; sessions: number; friction_weight: number; signals: Record<string, number>;
  examples: { session_id: string; page: string; signal_type: string; element_selector: string; occurred_at: string }[];
}
export interface Journeys { site_id: string; sessions_analyzed?: number; edges: FrictionEdge[] }

export interface SessionEvent {
  id: string; type: string; page: string; occurred_at: string; signal_type?: string; element_selector?: string; label?: string;
  confidence?: number; name?: string; props?: Record<string, unknown>; referrer_page?: string;
}
export interface SessionDetail {
  session: {
    session_id: string; started_at: string; ended_at: string | null; duration_ms: number | null; entry_page: string; exit_page: string | null;
    pages: string[]; page_count: number; event_count: number; signal_count: number; signal_counts: Record<string, number>;
    device_type: string | null; browser: string | null; os: string | null; viewport_bucket: string | null; app_version: string | null;
    referrer_host: string | null; converted: boolean; environment: string | null;
  };
  events: SessionEvent[];
  narrative: string;
}

export interface Recommendation {
  issue_id: string; title: string; page: string; element_selector: string; type: string; severity: Severity; status: string;
  /** Users affected over the last 24 hours. */
  affected_users: number;
  monthly_revenue_at_risk_cents: number | null;
  priority: number; priority_reason: string; recommendation: string; issue_url: string;
}
export interface Recommendations { currency: string; recommendations: Recommendation[] }

/** A friction clip: a few masked seconds of rrweb recording around one or more signals. */
export interface Clip {
  id: string; session_id: string; page: string; device: string | null; signal_ids: string[]; signal_types: string[];
  started_at: string; ended_at: string; bytes: number;
}
export interface ClipList { clips: Clip[]; total: number; offset: number; limit: number }
/** The clip with its rrweb events, decompressed. */
export interface ClipDetail extends Clip { events: { type: number; timestamp: number; data?: unknown }[] }
/** The page's latest snapshot: rrweb's full-snapshot event (type 2) with the page's laid-out size. */
export interface PageSnapshot {
  page: string; device: string; width: number; height: number; taken_at: string;
  snapshot: { type: number; timestamp?: number; data: { node: unknown; initialOffset?: { top: number; left: number } } };
}
