// The whole data model, designed up front for every slice. Later changes come as new
// migrations; this file never changes once released.
import type { CreateTableBuilder, Kysely } from 'kysely';

type Table = CreateTableBuilder<string, never>;

// Column helpers: the same types work on SQLite (by affinity) and PostgreSQL.
const id = (t: Table) => t.addColumn('id', 'text', (c) => c.primaryKey());
const ms = 'bigint' as const;
const real = 'double precision' as const;

export async function up(db: Kysely<unknown>): Promise<void> {
  const s = db.schema;

  await s.createTable('orgs').$call(id)
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', ms, (c) => c.notNull()).execute();

  await s.createTable('org_settings')
    .addColumn('org_id', 'text', (c) => c.primaryKey().references('orgs.id').onDelete('cascade'))
    .addColumn('duck_facts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', ms, (c) => c.notNull()).execute();

  await s.createTable('users').$call(id)
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('password_hash', 'text')
    .addColumn('name', 'text')
    .addColumn('created_at', ms, (c) => c.notNull())
    .addColumn('updated_at', ms, (c) => c.notNull()).execute();

  await s.createTable('memberships').$call(id)
    .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('created_at', ms, (c) => c.notNull())
    .addColumn('updated_at', ms, (c) => c.notNull())
    .addUniqueConstraint('memberships_org_user', ['org_id', 'user_id']).execute();
  await s.createIndex('memberships_user').on('memberships').column('user_id').execute();

  await s.createTable('user_tokens').$call(id)
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('org_id', 'text')
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('expires_at', ms, (c) => c.notNull())
    .addColumn('used_at', ms)
    .addColumn('created_at', ms, (c) => c.notNull()).execute();

  await s.createTable('revoked_tokens')
    .addColumn('jti', 'text', (c) => c.primaryKey())
    .addColumn('expires_at', ms, (c) => c.notNull()).execute();

  await s.createTable('sites').$call(id)
    .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('allowed_origins', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('created_at', ms, (c) => c.notNull())
    .addColumn('updated_at', ms, (c) => c.notNull())
    .addColumn('deleted_at', ms).execute();
  await s.createIndex('sites_org').on('sites').columns(['org_id', 'created_at']).execute();

  await s.createTable('api_keys').$call(id)
    .addColumn('org_id', 'text', (c) => c.notNull().references('orgs.id').onDelete('cascade'))
    .addColumn('site_id', 'text')
    .addColumn('key_type', 'text', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('key_hint', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text')
    .addColumn('created_at', ms, (c) => c.notNull())
    .addColumn('expires_at', ms)
    .addColumn('revoked_at', ms).execute();
  await s.createIndex('api_keys_org').on('api_keys').columns(['org_id', 'created_at']).execute();

  await s.createTable('sessions').$call(id)
    .addColumn('site_id', 'text', (c) => c.notNull())
    .addColumn('sid', 'text', (c) => c.notNull())
    .addColumn('visitor_id', 'text')
    .addColumn('user_ref', 'text')
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('first_seen_at', ms, (c) => c.notNull())
    .addColumn('last_seen_at', ms, (c) => c.notNull())
    .addColumn('entry_page', 'text')
    .addColumn('exit_page', 'text')
    .addColumn('pages', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('page_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('event_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('signal_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('signal_counts', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('device_type', 'text')
    .addColumn('browser', 'text')
    .addColumn('os', 'text')
    .addColumn('viewport_bucket', 'text')
    .addColumn('app_version', 'text')
    .addColumn('referrer_host', 'text')
    .addColumn('converted', 'integer', (c) => c.notNull().defaultTo(0))
    .addUniqueConstraint('sessions_site_sid', ['site_id', 'sid']).execute();
  await s.createIndex('sessions_site_last_seen').on('sessions').columns(['site_id', 'last_seen_at']).execute();

  await s.createTable('events').$call(id)
    .addColumn('site_id', 'text', (c) => c.notNull())
    .addColumn('sid', 'text', (c) => c.notNull())
    .addColumn('visitor_id', 'text')
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('page', 'text', (c) => c.notNull())
    .addColumn('occurred_at', ms, (c) => c.notNull())
    .addColumn('client_ts', ms)
    .addColumn('received_at', ms, (c) => c.notNull())
    .addColumn('dedupe_key', 'text', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('signal_type', 'text')
    .addColumn('element', 'text')
    .addColumn('label', 'text')
    .addColumn('props', 'text')
    .addColumn('referrer_page', 'text')
    .addColumn('environment', 'text', (c) => c.notNull())
    .addUniqueConstraint('events_dedupe', ['site_id', 'sid', 'dedupe_key']).execute();
  await s.createIndex('events_site_time').on('events').columns(['site_id', 'occurred_at']).execute();
  // Every index costs each ingested row a b-tree insert: only the ones reads truly need.
  await s.createIndex('events_site_page_time').on('events').columns(['site_id', 'page', 'occurred_at']).execute();

  await s.createTable('signals').$call(id)
    .addColumn('site_id', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('sid', 'text', (c) => c.notNull())
    .addColumn('visitor_id', 'text')
    .addColumn('signal_type', 'text', (c) => c.notNull())
    .addColumn('page', 'text', (c) => c.notNull())
    .addColumn('element', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('label', 'text')
    .addColumn('confidence', real, (c) => c.notNull())
    .addColumn('occurred_at', ms, (c) => c.notNull())
    .addColumn('rx', real)
    .addColumn('ry', real)
    .addColumn('vx', real)
    .addColumn('vy', real)
    .addColumn('environment', 'text', (c) => c.notNull()).execute();
  await s.createIndex('signals_site_time').on('signals').columns(['site_id', 'occurred_at']).execute();
  await s.createIndex('signals_site_page_time').on('signals').columns(['site_id', 'page', 'occurred_at']).execute();
  await s.createIndex('signals_site_sid').on('signals').columns(['site_id', 'sid']).execute();

  await s.createTable('page_scores').$call(id)
    .addColumn('site_id', 'text', (c) => c.notNull())
    .addColumn('page', 'text', (c) => c.notNull())
    .addColumn('score', real, (c) => c.notNull())
    .addColumn('raw_score', real, (c) => c.notNull())
    .addColumn('trend', 'text', (c) => c.notNull())
    .addColumn('deviation', real)
    .addColumn('duck_state', 'text', (c) => c.notNull())
    .addColumn('dominant_signal', 'text')
    .addColumn('breakdown', 'text', (c) => c.notNull())
    .addColumn('active_users', 'integer', (c) => c.notNull())
    .addColumn('affected_users', 'integer', (c) => c.notNull())
    .addColumn('frustrated_users', 'integer', (c) => c.notNull())
    .addColumn('signal_count', 'integer', (c) => c.notNull())
    .addColumn('window_start', ms, (c) => c.notNull())
    .addColumn('window_end', ms, (c) => c.notNull())
    .addColumn('stale', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('computed_at', ms, (c) => c.notNull())
    .addColumn('first_seen_at', ms, (c) => c.notNull())
    .addUniqueConstraint('page_scores_site_page', ['site_id', 'page']).execute();

  await s.createTable('score_history').$call(id)
    .addColumn('site_id', 'text', (c) => c.notNull())
    .addColumn('page', 'text', (c) => c.notNull())
    .addColumn('cycle_at', ms, (c) => c.notNull())
    .addColumn('score', real, (c) => c.notNull())
    .addColumn('raw_score', real, (c) => c.notNull())
    .addColumn('deviation', real)
    .addColumn('trend', 'text', (c) => c.notNull())
    .addColumn('active_users', 'integer', (c) => c.notNull())
    .addColumn('affected_users', 'integer', (c) => c.notNull())
    .addColumn('breakdown', 'text', (c) => c.notNull())
    .addUniqueConstraint('score_history_cycle', ['site_id', 'page', 'cycle_at']).execute();
  await s.createIndex('score_history_site_time').on('score_history').columns(['site_id', 'cycle_at']).execute();

  await s.createTable('ux_issues').$call(id)
    .addColumn('site_id', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('page', 'text', (c) => c.notNull())
    .addColumn('element_selector', 'text', (c) => c.notNull())
    .addColumn('element_label', 'text')
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('severity', 'text', (c) => c.notNull())
    .addColumn('severity_score', real, (c) => c.notNull())
    .addColumn('severity_manual', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('assigned_to', 'text')
    .addColumn('signal_count', 'integer', (c) => c.notNull())
    .addColumn('session_count', 'integer', (c) => c.notNull())
    .addColumn('user_count', 'integer', (c) => c.notNull())
    .addColumn('first_seen_at', ms, (c) => c.notNull())
    .addColumn('last_seen_at', ms, (c) => c.notNull())
    .addColumn('resolved_at', ms)
    .addColumn('ignored_at', ms)
    .addColumn('status_changed_at', ms, (c) => c.notNull())
    .addColumn('created_at', ms, (c) => c.notNull())
    .addColumn('updated_at', ms, (c) => c.notNull())
    .addColumn('ticket_provider', 'text')
    .addColumn('ticket_id', 'text')
    .addColumn('ticket_url', 'text')
    .addUniqueConstraint('ux_issues_fingerprint', ['site_id', 'fingerprint']).execute();
  await s.createIndex('ux_issues_site_status').on('ux_issues').columns(['site_id', 'status', 'last_seen_at']).execute();

  await s.createTable('issue_evidence').$call(id)
    .addColumn('issue_id', 'text', (c) => c.notNull().references('ux_issues.id').onDelete('cascade'))
    .addColumn('signal_id', 'text', (c) => c.notNull())
    .addColumn('sid', 'text', (c) => c.notNull())
    .addColumn('occurred_at', ms, (c) => c.notNull())
    .addUniqueConstraint('issue_evidence_signal', ['issue_id', 'signal_id']).execute();

  await s.createTable('issue_activity').$call(id)
    .addColumn('issue_id', 'text', (c) => c.notNull().references('ux_issues.id').onDelete('cascade'))
    .addColumn('actor', 'text')
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('message', 'text')
    .addColumn('from_status', 'text')
    .addColumn('to_status', 'text')
    .addColumn('created_at', ms, (c) => c.notNull()).execute();
  await s.createIndex('issue_activity_issue').on('issue_activity').columns(['issue_id', 'created_at']).execute();

  await s.createTable('issue_verifications').$call(id)
    .addColumn('issue_id', 'text', (c) => c.notNull().references('ux_issues.id').onDelete('cascade'))
    .addColumn('deploy_id', 'text')
    .addColumn('deploy_version', 'text')
    .addColumn('result', 'text', (c) => c.notNull())
    .addColumn('before_count', 'integer', (c) => c.notNull())
    .addColumn('before_rate', real, (c) => c.notNull())
    .addColumn('after_count', 'integer', (c) => c.notNull())
    .addColumn('after_rate', real)
    .addColumn('active_users_after', 'integer', (c) => c.notNull())
    .addColumn('started_at', ms, (c) => c.notNull())
    .addColumn('decided_at', ms)
    .addColumn('created_at', ms, (c) => c.notNull()).execute();
  await s.createIndex('issue_verifications_issue').on('issue_verifications').columns(['issue_id', 'created_at']).execute();

  await s.createTable('alert_rules').$call(id)
    .addColumn('site_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('trigger_type', 'text', (c) => c.notNull())
    .addColumn('threshold', real, (c) => c.notNull())
    .addColumn('cooldown_minutes', 'integer', (c) => c.notNull())
    .addColumn('channels', 'text', (c) => c.notNull())
    .addColumn('page_pattern', 'text', (c) => c.notNull())
    .addColumn('slack_channel', 'text')
    .addColumn('config', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('created_at', ms, (c) => c.notNull())
    .addColumn('updated_at', ms, (c) => c.notNull()).execute();
  await s.createIndex('alert_rules_site').on('alert_rules').column('site_id').execute();

  await s.createTable('alerts').$call(id)
    .addColumn('site_id', 'text', (c) => c.notNull())
    .addColumn('rule_id', 'text')
    .addColumn('trigger_type', 'text', (c) => c.notNull())
    .addColumn('page', 'text')
    .addColumn('severity', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('score_before', real)
    .addColumn('score_after', real)
    .addColumn('condition_value', real)
    .addColumn('threshold', real, (c) => c.notNull())
    .addColumn('breakdown', 'text', (c) => c.notNull())
    .addColumn('fired_at', ms, (c) => c.notNull())
    .addColumn('acknowledged_at', ms)
    .addColumn('investigating_at', ms)
    .addColumn('resolved_at', ms)
    .addColumn('resolved_reason', 'text')
    .addColumn('last_notified_at', ms)
    .addColumn('created_at', ms, (c) => c.notNull())
    .addColumn('updated_at', ms, (c) => c.notNull()).execute();
  await s.createIndex('alerts_site_status').on('alerts').columns(['site_id', 'status', 'fired_at']).execute();

  await s.createTable('alert_timeline').$call(id)
    .addColumn('alert_id', 'text', (c) => c.notNull().references('alerts.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('details', 'text')
    .addColumn('created_at', ms, (c) => c.notNull()).execute();
  await s.createIndex('alert_timeline_alert').on('alert_timeline').columns(['alert_id', 'created_at']).execute();

  await s.createTable('deploys').$call(id)
    .addColumn('site_id', 'text', (c) => c.notNull())
    .addColumn('version', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('deployed_at', ms, (c) => c.notNull())
    .addColumn('commit_sha', 'text')
    .addColumn('author', 'text')
    .addColumn('pr_number', 'integer')
    .addColumn('provider', 'text')
    .addColumn('url', 'text')
    .addColumn('description', 'text')
    .addColumn('confusion_before', real, (c) => c.notNull())
    .addColumn('confusion_after', real)
    .addColumn('delta', real)
    .addColumn('pages_before', 'text', (c) => c.notNull())
    .addColumn('pages_after', 'text')
    .addColumn('after_computed_at', ms)
    .addColumn('created_at', ms, (c) => c.notNull()).execute();
  await s.createIndex('deploys_site_time').on('deploys').columns(['site_id', 'deployed_at']).execute();

  await s.createTable('annotations').$call(id)
    .addColumn('site_id', 'text', (c) => c.notNull())
    .addColumn('page', 'text')
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('author', 'text')
    .addColumn('created_at', ms, (c) => c.notNull()).execute();
  await s.createIndex('annotations_site_time').on('annotations').columns(['site_id', 'created_at']).execute();

  await s.createTable('webhooks').$call(id)
    .addColumn('site_id', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('secret_enc', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('created_at', ms, (c) => c.notNull())
    .addColumn('updated_at', ms, (c) => c.notNull()).execute();
  await s.createIndex('webhooks_site').on('webhooks').column('site_id').execute();

  await s.createTable('webhook_deliveries').$call(id)
    .addColumn('webhook_id', 'text', (c) => c.notNull())
    .addColumn('site_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', ms)
    .addColumn('last_status_code', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('created_at', ms, (c) => c.notNull())
    .addColumn('updated_at', ms, (c) => c.notNull())
    .addColumn('delivered_at', ms).execute();
  await s.createIndex('webhook_deliveries_webhook').on('webhook_deliveries').columns(['webhook_id', 'created_at']).execute();
  await s.createIndex('webhook_deliveries_due').on('webhook_deliveries').columns(['status', 'next_attempt_at']).execute();

  await s.createTable('integrations').$call(id)
    .addColumn('site_id', 'text', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('config_enc', 'text', (c) => c.notNull())
    .addColumn('config_masked', 'text', (c) => c.notNull())
    .addColumn('created_at', ms, (c) => c.notNull())
    .addColumn('updated_at', ms, (c) => c.notNull())
    .addUniqueConstraint('integrations_site_provider', ['site_id', 'provider']).execute();

  await s.createTable('sdk_configs').$call(id)
    .addColumn('site_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('config', 'text', (c) => c.notNull())
    .addColumn('updated_at', ms, (c) => c.notNull())
    .addUniqueConstraint('sdk_configs_site_env', ['site_id', 'environment']).execute();

  await s.createTable('audit_log').$call(id)
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('site_id', 'text')
    .addColumn('actor_type', 'text', (c) => c.notNull())
    .addColumn('actor_id', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target_type', 'text', (c) => c.notNull())
    .addColumn('target_id', 'text')
    .addColumn('details', 'text')
    .addColumn('created_at', ms, (c) => c.notNull()).execute();
  await s.createIndex('audit_log_org_time').on('audit_log').columns(['org_id', 'created_at']).execute();

  await s.createTable('outbox').$call(id)
    .addColumn('site_id', 'text')
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', ms, (c) => c.notNull())
    .addColumn('created_at', ms, (c) => c.notNull())
    .addColumn('processed_at', ms).execute();
  await s.createIndex('outbox_due').on('outbox').columns(['status', 'next_attempt_at']).execute();
}
