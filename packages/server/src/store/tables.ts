// Table types for Kysely. Times are epoch milliseconds (integers) in both dialects,
// JSON values are stored as text, booleans as 0/1: one representation everywhere.
import type { ColumnType, Selectable } from 'kysely';

type Ms = number;
type Json = string;
type Flag = number;
/** A column the database fills with its default when an insert leaves it out. */
type Defaulted<T> = ColumnType<T, T | undefined, T>;

export interface OrgsTable { id: string; name: string; created_at: Ms }
export interface OrgSettingsTable {
  org_id: string; duck_facts: Flag; updated_at: Ms;
  /** Who must sign in with two factors: 'off', 'admins' (admin and owner) or 'everyone'. */
  require_2fa: Defaulted<string>;
}

export interface UsersTable {
  id: string; email: string; password_hash: string | null; name: string | null;
  created_at: Ms; updated_at: Ms;
  /** When the password last changed: user JWTs issued before it no longer verify. */
  password_changed_at: Ms | null;
}
export interface MembershipsTable {
  id: string; org_id: string; user_id: string; role: string; created_at: Ms; updated_at: Ms;
}
export interface UserTokensTable {
  id: string; user_id: string; org_id: string | null; purpose: string; token_hash: string;
  expires_at: Ms; used_at: Ms | null; created_at: Ms;
}
export interface RevokedTokensTable { jti: string; expires_at: Ms }
/** A dashboard session (the `mallard_session` cookie): its token's HMAC, idle and absolute deadlines. */
export interface WebSessionsTable {
  id: string; user_id: string; org_id: string; token_hash: string; method: string;
  created_at: Ms; last_seen_at: Ms; expires_at: Ms; absolute_expires_at: Ms;
}
/** A user's TOTP authenticator: the secret sealed; confirmed_at null while enrolment is unconfirmed; last_step the last accepted time step. */
export interface UserMfaTable {
  user_id: string; totp_secret: string; confirmed_at: Ms | null; last_step: number | null; created_at: Ms; updated_at: Ms;
}
/** One-time recovery codes, kept as HMACs only. */
export interface UserRecoveryCodesTable { id: string; user_id: string; code_hash: string; used_at: Ms | null; created_at: Ms }

/** An org's OIDC identity provider (0017): client_secret sealed; email_domains a JSON array of lowercase domains. */
export interface SsoConnectionsTable {
  org_id: string; issuer: string; client_id: string; client_secret: string; email_domains: Json;
  jit: Flag; default_role: string; required: Flag; enabled: Flag; created_at: Ms; updated_at: Ms;
}
/** An SSO sign-in between its start and its callback: the state as an HMAC, the PKCE verifier sealed; claimed once (used_at). */
export interface SsoLoginsTable {
  id: string; org_id: string; state_hash: string; nonce: string; code_verifier: string; email: string | null;
  return_to: string; created_at: Ms; expires_at: Ms; used_at: Ms | null;
}

/**
 * What the OAuth authorization server keeps (0021; features/oauth/adapter.ts): one row per
 * record of a model (Client, Interaction, Session, Grant, AuthorizationCode, AccessToken,
 * RefreshToken), found by the HMAC of its id (a token's id is the token), its payload sealed.
 */
export interface OAuthRecordsTable {
  model: string; id_hash: string; payload: string; grant_id: string | null; uid_hash: string | null;
  expires_at: Ms | null; consumed_at: Ms | null;
}
/** One approved OAuth connection (0021): the consent screen's choices for the grant, listed and revoked from settings. */
export interface OAuthGrantsTable {
  id: string; grant_id: string; client_id: string; client_name: string; redirect_uri: string;
  user_id: string; org_id: string; site_id: string | null; access: string;
  created_at: Ms; last_used_at: Ms | null; revoked_at: Ms | null;
}

export interface SitesTable {
  id: string; org_id: string; name: string; url: string; allowed_origins: Json;
  created_at: Ms; updated_at: Ms; deleted_at: Ms | null;
  /** Days this site's raw data is kept, at most the instance's MALLARD_RETENTION_DAYS; null: that. */
  retention_days: number | null;
  /** Days clips and snapshots are kept (migration 0020), never longer than the raw data. */
  clip_retention_days: Defaulted<number>;
  /** The day's (UTC) budget of clip and snapshot bytes, compressed as stored. */
  clip_daily_bytes: Defaulted<number>;
}
export interface ApiKeysTable {
  id: string; org_id: string; site_id: string | null; key_type: string; name: string | null;
  scopes: Json; key_hash: string; key_hint: string; created_by: string | null;
  created_at: Ms; expires_at: Ms | null; revoked_at: Ms | null; last_used_at: Ms | null;
}

export interface SessionsTable {
  id: string; site_id: string; sid: string; visitor_id: string | null; user_ref: string | null;
  environment: string; first_seen_at: Ms; last_seen_at: Ms; entry_page: string | null;
  exit_page: string | null; pages: Json; page_count: number; event_count: number;
  signal_count: number; signal_counts: Json; device_type: string | null; browser: string | null;
  os: string | null; viewport_bucket: string | null; app_version: string | null;
  referrer_host: string | null; converted: Flag;
  /** sum(weight x cf) of the session's signals, kept by ingest (migration 0018, ingest/session.ts). */
  friction_weight: Defaulted<number>;
  /** The session's pageviews, track events and signals in order, kept by ingest; null: read its events (store/session-path.ts, migration 0022). */
  path: Defaulted<string | null>;
}
export interface EventsTable {
  id: string; site_id: string; sid: string; visitor_id: string | null; type: string; page: string;
  occurred_at: Ms; client_ts: Ms | null; received_at: Ms; dedupe_key: string;
  name: string | null; signal_type: string | null; element: string | null; label: string | null;
  props: Json | null; referrer_page: string | null; environment: string;
}
export interface SignalsTable {
  id: string; site_id: string; event_id: string; sid: string; visitor_id: string | null;
  signal_type: string; page: string; element: string; label: string | null; confidence: number;
  occurred_at: Ms; rx: number | null; ry: number | null; vx: number | null; vy: number | null;
  environment: string;
}
/** Signals on elements per (site, page, hour, element, type, user): see store/element-rollup.ts. */
export interface ElementRollupTable {
  site_id: string; page: string; hour: Ms; element: string; signal_type: string; user_key: string;
  signals: number; label: string | null;
}

/** Rows per site of the tables /query/raw serves, kept by triggers (store/row-counts.ts). */
export interface RowCountsTable { site_id: string; table_name: string; shard: number; row_count: number }

export interface PageScoresTable {
  id: string; site_id: string; page: string; score: number; raw_score: number; trend: string;
  deviation: number | null; duck_state: string; dominant_signal: string | null; breakdown: Json;
  active_users: number; affected_users: number; frustrated_users: number; signal_count: number;
  window_start: Ms; window_end: Ms; stale: Flag; computed_at: Ms; first_seen_at: Ms;
}
export interface ScoreHistoryTable {
  id: string; site_id: string; page: string; cycle_at: Ms; score: number; raw_score: number;
  deviation: number | null; trend: string; active_users: number; affected_users: number;
  breakdown: Json;
}

export interface UxIssuesTable {
  id: string; site_id: string; fingerprint: string; title: string; page: string;
  element_selector: string; element_label: string | null; type: string; severity: string;
  severity_score: number; severity_manual: string | null; status: string;
  assigned_to: string | null; signal_count: number; session_count: number; user_count: number;
  first_seen_at: Ms; last_seen_at: Ms; resolved_at: Ms | null; ignored_at: Ms | null;
  status_changed_at: Ms; created_at: Ms; updated_at: Ms;
  ticket_provider: string | null; ticket_id: string | null; ticket_url: string | null;
  /** Priority's inputs and result (migration 0013, domain/priority.ts): the result each cycle, users_7d and revenue at most hourly. */
  users_7d: Defaulted<number>; signal_weight: number | null; revenue_at_risk_cents: number | null;
  priority: Defaulted<number>; priority_reason: Defaulted<string>;
  /** When users_7d and revenue_at_risk_cents were last computed (pipeline/prioritise-step.ts); null: never. */
  priority_inputs_at: Defaulted<Ms | null>;
}
/** An issue row as read. */
export type UxIssue = Selectable<UxIssuesTable>;
export interface IssueEvidenceTable {
  id: string; issue_id: string; signal_id: string; sid: string; occurred_at: Ms;
}
export interface IssueActivityTable {
  id: string; issue_id: string; actor: string | null; kind: string; message: string | null;
  from_status: string | null; to_status: string | null; created_at: Ms;
}
export interface IssueVerificationsTable {
  id: string; issue_id: string; deploy_id: string | null; deploy_version: string | null;
  result: string; before_count: number; before_rate: number; after_count: number;
  after_rate: number | null; active_users_after: number; started_at: Ms; decided_at: Ms | null;
  created_at: Ms;
}

export interface AlertRulesTable {
  id: string; site_id: string; name: string; trigger_type: string; threshold: number;
  cooldown_minutes: number; channels: Json; page_pattern: string; slack_channel: string | null;
  config: Json; enabled: Flag; created_at: Ms; updated_at: Ms;
}
export interface AlertsTable {
  id: string; site_id: string; rule_id: string | null; trigger_type: string; page: string | null;
  severity: string; status: string; message: string; score_before: number | null;
  score_after: number | null; condition_value: number | null; threshold: number;
  breakdown: Json; fired_at: Ms; acknowledged_at: Ms | null; investigating_at: Ms | null;
  resolved_at: Ms | null; resolved_reason: string | null; last_notified_at: Ms | null;
  created_at: Ms; updated_at: Ms;
}
export interface AlertTimelineTable {
  id: string; alert_id: string; kind: string; message: string; details: Json | null; created_at: Ms;
}

export interface DeploysTable {
  id: string; site_id: string; version: string; environment: string; deployed_at: Ms;
  commit_sha: string | null; author: string | null; pr_number: number | null;
  provider: string | null; url: string | null; description: string | null;
  confusion_before: number; confusion_after: number | null; delta: number | null;
  pages_before: Json; pages_after: Json | null; after_computed_at: Ms | null; created_at: Ms;
  /** `legacy`: scores from before the calibrated scale that could not be recomputed (migration 0012). */
  score_scale: 'calibrated' | 'legacy';
}
export interface AnnotationsTable {
  id: string; site_id: string; page: string | null; message: string; author: string | null;
  created_at: Ms;
}

export interface WebhooksTable {
  id: string; site_id: string; url: string; events: Json; secret_enc: string; enabled: Flag;
  created_at: Ms; updated_at: Ms; previous_secret_enc: string | null; previous_secret_expires_at: Ms | null;
}
export interface WebhookDeliveriesTable {
  id: string; webhook_id: string; site_id: string; event_type: string; event_id: string;
  payload: Json; status: string; attempts: number; next_attempt_at: Ms | null;
  last_status_code: number | null; last_error: string | null; created_at: Ms; updated_at: Ms;
  delivered_at: Ms | null;
}
export interface IntegrationsTable {
  id: string; site_id: string; provider: string; config_enc: string; config_masked: Json;
  created_at: Ms; updated_at: Ms;
}
export interface SdkConfigsTable {
  id: string; site_id: string; environment: string; config: Json; updated_at: Ms;
}

export interface AuditLogTable {
  id: string; org_id: string; site_id: string | null; actor_type: string; actor_id: string | null;
  action: string; target_type: string; target_id: string | null; details: Json | null;
  created_at: Ms; request_id: string | null; ip: string | null;
}
export interface IdempotencyKeysTable {
  credential: string; key: string; request_hash: string; status_code: number | null;
  response: string | null; created_at: Ms;
}
export interface OutboxTable {
  id: string; site_id: string | null; kind: string; payload: Json; status: string;
  attempts: number; next_attempt_at: Ms; created_at: Ms; processed_at: Ms | null;
}

export interface SiteScoreHistoryTable {
  id: string; site_id: string; cycle_at: Ms; overall_score: number; raw_score: number;
  deviation: number | null; trend: string; active_users: number; affected_users: number;
  window_start: Ms;
}
export interface PipelineClaimsTable { site_id: string; holder: string; cycle_at: Ms; expires_at: Ms }

export interface PipelineStateTable { site_id: string; issues_counted_until: Ms }

export interface AlertRuleStateTable { rule_id: string; page: string; last_value: number; updated_at: Ms }
export interface AlertCooldownsTable { rule_id: string; page: string; until: Ms; alert_id: string }

/** A saved funnel (0019): steps a JSON array of page patterns and event names; created_by the actor's label. */
export interface FunnelsTable {
  id: string; site_id: string; name: string; steps: Json; window_minutes: number; created_by: string | null;
  created_at: Ms; updated_at: Ms;
}

/** A friction clip or page snapshot (migration 0020): rrweb events compressed (`encoding`) in `body`. */
export interface ClipsTable {
  id: string; site_id: string; client_id: string; kind: string; sid: string; visitor_id: string | null;
  environment: string; page: string; device: string; signal_ids: Json; signal_types: Json;
  started_at: Ms; ended_at: Ms; width: number; height: number; event_count: number; bytes: number;
  encoding: string; body: Buffer; created_at: Ms;
}
/** A signal a clip covers, by its SDK event id (migration 0020). */
export interface ClipSignalsTable {
  clip_id: string; event_id: string; site_id: string; signal_type: string; page: string; element: string; created_at: Ms;
}

export interface DeliveryAttemptsTable {
  id: string; site_id: string; delivery_id: string; attempt: number; status_code: number | null;
  latency_ms: number; error: string | null; created_at: Ms;
}

export interface Database {
  orgs: OrgsTable;
  org_settings: OrgSettingsTable;
  users: UsersTable;
  memberships: MembershipsTable;
  user_tokens: UserTokensTable;
  revoked_tokens: RevokedTokensTable;
  web_sessions: WebSessionsTable;
  user_mfa: UserMfaTable;
  user_recovery_codes: UserRecoveryCodesTable;
  sso_connections: SsoConnectionsTable;
  sso_logins: SsoLoginsTable;
  sites: SitesTable;
  api_keys: ApiKeysTable;
  sessions: SessionsTable;
  events: EventsTable;
  signals: SignalsTable;
  element_rollup: ElementRollupTable;
  row_counts: RowCountsTable;
  page_scores: PageScoresTable;
  score_history: ScoreHistoryTable;
  ux_issues: UxIssuesTable;
  issue_evidence: IssueEvidenceTable;
  issue_activity: IssueActivityTable;
  issue_verifications: IssueVerificationsTable;
  alert_rules: AlertRulesTable;
  alerts: AlertsTable;
  alert_timeline: AlertTimelineTable;
  deploys: DeploysTable;
  annotations: AnnotationsTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  integrations: IntegrationsTable;
  sdk_configs: SdkConfigsTable;
  audit_log: AuditLogTable;
  idempotency_keys: IdempotencyKeysTable;
  outbox: OutboxTable;
  site_score_history: SiteScoreHistoryTable;
  pipeline_claims: PipelineClaimsTable;
  pipeline_state: PipelineStateTable;
  alert_rule_state: AlertRuleStateTable;
  alert_cooldowns: AlertCooldownsTable;
  delivery_attempts: DeliveryAttemptsTable;
  funnels: FunnelsTable;
  clips: ClipsTable;
  clip_signals: ClipSignalsTable;
  oauth_records: OAuthRecordsTable;
  oauth_grants: OAuthGrantsTable;
}

export type Org = Selectable<OrgsTable>;
export type User = Selectable<UsersTable>;
export type Site = Selectable<SitesTable>;
export type ApiKey = Selectable<ApiKeysTable>;
export type Membership = Selectable<MembershipsTable>;
