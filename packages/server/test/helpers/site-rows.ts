// A site's rows in every table that holds any, for the site purge tests: one row (or one
// set of parent and children) per table written straight to the store, and a count per table
// read the same way. The tables come from the live schema, so a table added later that holds
// a site's rows is counted (and must be seeded) or classified here, never silently left out.
import { randomBytes, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { Store } from '../../src/store/db.ts';

/** Tables whose rows belong to a site through a parent row, and that parent. */
const CHILD_TABLES: Record<string, { column: string; parent: string }> = {
  issue_evidence: { column: 'issue_id', parent: 'ux_issues' },
  issue_activity: { column: 'issue_id', parent: 'ux_issues' },
  issue_verifications: { column: 'issue_id', parent: 'ux_issues' },
  alert_timeline: { column: 'alert_id', parent: 'alerts' },
  alert_rule_state: { column: 'rule_id', parent: 'alert_rules' },
  alert_cooldowns: { column: 'rule_id', parent: 'alert_rules' },
};

/**
 * Tables that hold no site's rows, or keep them on purpose: the site row itself stays (hidden),
 * so its id is never reused; the audit log is the org's record and outlives the site;
 * idempotency keys belong to a credential and expire on their own; the migrator keeps its own;
 * the OAuth server's records belong to a grant (those of a site's connections go with them).
 */
const NOT_PURGED = new Set(['mallard_migrations', 'mallard_migrations_lock', 'orgs', 'org_settings', 'users', 'memberships', 'user_tokens', 'revoked_tokens', 'user_mfa', 'user_recovery_codes', 'web_sessions', 'sso_connections', 'sso_logins', 'sites', 'audit_log', 'idempotency_keys', 'oauth_records']);

/** Every table of the store's schema that holds a site's rows: by a site_id column, or through a parent. */
export async function siteTables(store: Store): Promise<string[]> {
  let tables = await store.db.introspection.getTables();
  if (store.dialect === 'postgres') {
    // The introspector lists every schema's tables; the test store is the current one.
    const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(store.db);
    tables = tables.filter((t) => t.schema === rows[0].schema);
  }
  const out: string[] = [];
  for (const table of tables) {
    if (NOT_PURGED.has(table.name)) continue;
    if (table.columns.some((c) => c.name === 'site_id') || table.name in CHILD_TABLES) out.push(table.name);
    else throw new Error(`table ${table.name}: say in test/helpers/site-rows.ts whether it holds a site's rows`);
  }
  return out.sort();
}

/** How many rows of the site each of its tables holds. */
export async function siteRowCounts(store: Store, siteId: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const table of await siteTables(store)) {
    const child = CHILD_TABLES[table];
    const query = child
      ? sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)} where ${sql.ref(child.column)} in (select id from ${sql.table(child.parent)} where site_id = ${siteId})`
      : sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)} where site_id = ${siteId}`;
    out[table] = Number((await query.execute(store.db)).rows[0].n);
  }
  return out;
}

const hex32 = () => randomBytes(16).toString('hex');
/** Seeds so far: each writes its site score history at a cycle of its own. */
let seeds = 0;

/**
 * One set of a site's rows in every site table: a session with a pageview and a signal (and its element rollup row, and a clip
 * with its signal row), scores
 * and history, an issue with evidence, activity and a verification, a rule with its state and
 * cooldown and an alert with its timeline, a deploy, an annotation, a saved funnel, a webhook with a delivery
 * and an attempt, an integration, an SDK config, an outbox entry, a site-scoped key and the
 * pipeline's claim and state. Call it again for more rows (the claim and state are one per site).
 */
export async function seedSiteRows(store: Store, orgId: string, siteId: string, now: number) {
  const db = store.db;
  const sid = hex32();
  const eventId = randomUUID();
  const id = () => randomUUID();
  await db.insertInto('sessions').values({
    id: id(), site_id: siteId, sid, visitor_id: null, user_ref: null, environment: 'production',
    first_seen_at: now, last_seen_at: now, entry_page: '/', exit_page: '/', pages: '["/"]', page_count: 1,
    event_count: 2, signal_count: 1, signal_counts: '{"rage_click":1}', device_type: 'desktop', browser: null,
    os: null, viewport_bucket: null, app_version: null, referrer_host: null, converted: 0,
  }).execute();
  const event = { site_id: siteId, sid, visitor_id: null, page: '/', occurred_at: now, client_ts: now, received_at: now, label: null, props: null, referrer_page: null, environment: 'production', name: null };
  await db.insertInto('events').values([
    { ...event, id: eventId, type: 'signal', dedupe_key: `k-${hex32()}`, signal_type: 'rage_click', element: 'button.pay' },
    { ...event, id: id(), type: 'pageview', dedupe_key: `k-${hex32()}`, signal_type: null, element: null },
  ]).execute();
  const signalId = id();
  await db.insertInto('signals').values({
    id: signalId, site_id: siteId, event_id: eventId, sid, visitor_id: null, signal_type: 'rage_click', page: '/',
    element: 'button.pay', label: null, confidence: 0.9, occurred_at: now, rx: 0.5, ry: 0.5, vx: 0.3, vy: 0.4, environment: 'production',
  }).execute();
  // A friction clip of the signal (its body is any bytes here; the purge never reads it).
  const clipId = id();
  await db.insertInto('clips').values({
    id: clipId, site_id: siteId, client_id: hex32(), kind: 'clip', sid, visitor_id: null, environment: 'production', page: '/', device: 'desktop',
    signal_ids: '[]', signal_types: '["rage_click"]', started_at: now, ended_at: now, width: 1280, height: 720, event_count: 1, bytes: 4,
    encoding: 'br', body: Buffer.from([1, 2, 3, 4]), created_at: now,
  }).execute();
  await db.insertInto('clip_signals').values({ clip_id: clipId, event_id: hex32().slice(0, 16), site_id: siteId, signal_type: 'rage_click', page: '/', element: 'button.pay', created_at: now }).execute();
  await db.insertInto('element_rollup').values({
    site_id: siteId, page: '/', hour: now - (now % 3_600_000), element: 'button.pay', signal_type: 'rage_click', user_key: sid, signals: 1, label: null,
  }).execute();

  const page = `/p-${hex32()}`;
  await db.insertInto('page_scores').values({
    id: id(), site_id: siteId, page, score: 10, raw_score: 10, trend: 'flat', deviation: null, duck_state: 'calm', dominant_signal: null,
    breakdown: '[]', active_users: 1, affected_users: 1, frustrated_users: 0, signal_count: 1, window_start: now - 1, window_end: now,
    stale: 0, computed_at: now, first_seen_at: now,
  }).execute();
  await db.insertInto('score_history').values({
    id: id(), site_id: siteId, page, cycle_at: now, score: 10, raw_score: 10, deviation: null, trend: 'flat', active_users: 1, affected_users: 1, breakdown: '[]',
  }).execute();
  await db.insertInto('site_score_history').values({
    id: id(), site_id: siteId, cycle_at: now + ++seeds, overall_score: 10, raw_score: 10, deviation: null, trend: 'flat', active_users: 1, affected_users: 1, window_start: now - 1,
  }).execute();

  const issueId = id();
  await db.insertInto('ux_issues').values({
    id: issueId, site_id: siteId, fingerprint: hex32(), title: 'Rage clicks on button.pay', page: '/', element_selector: 'button.pay', element_label: null,
    type: 'rage_click', severity: 'low', severity_score: 1, severity_manual: null, status: 'open', assigned_to: null, signal_count: 1,
    session_count: 1, user_count: 1, first_seen_at: now, last_seen_at: now, resolved_at: null, ignored_at: null, status_changed_at: now,
    created_at: now, updated_at: now, ticket_provider: null, ticket_id: null, ticket_url: null,
  }).execute();
  await db.insertInto('issue_evidence').values({ id: id(), issue_id: issueId, signal_id: signalId, sid, occurred_at: now }).execute();
  await db.insertInto('issue_activity').values({ id: id(), issue_id: issueId, actor: null, kind: 'created', message: null, from_status: null, to_status: 'open', created_at: now }).execute();
  const deployId = id();
  await db.insertInto('deploys').values({
    id: deployId, site_id: siteId, version: `v-${hex32()}`, environment: 'production', deployed_at: now, commit_sha: null, author: null, pr_number: null,
    provider: null, url: null, description: null, confusion_before: 0, confusion_after: null, delta: null, pages_before: '[]', pages_after: null,
    after_computed_at: null, created_at: now, score_scale: 'calibrated',
  }).execute();
  await db.insertInto('issue_verifications').values({
    id: id(), issue_id: issueId, deploy_id: deployId, deploy_version: null, result: 'pending', before_count: 1, before_rate: 1, after_count: 0,
    after_rate: null, active_users_after: 0, started_at: now, decided_at: null, created_at: now,
  }).execute();

  const ruleId = id();
  await db.insertInto('alert_rules').values({
    id: ruleId, site_id: siteId, name: 'Rule', trigger_type: 'budget', threshold: 5, cooldown_minutes: 60, channels: '[]', page_pattern: '*',
    slack_channel: null, config: '{}', enabled: 1, created_at: now, updated_at: now,
  }).execute();
  const alertId = id();
  await db.insertInto('alerts').values({
    id: alertId, site_id: siteId, rule_id: ruleId, trigger_type: 'budget', page: '/', severity: 'low', status: 'fired', message: 'Rule: over budget',
    score_before: null, score_after: 10, condition_value: 10, threshold: 5, breakdown: '[]', fired_at: now, acknowledged_at: null, investigating_at: null,
    resolved_at: null, resolved_reason: null, last_notified_at: now, created_at: now, updated_at: now,
  }).execute();
  await db.insertInto('alert_timeline').values({ id: id(), alert_id: alertId, kind: 'fired', message: 'fired', details: null, created_at: now }).execute();
  await db.insertInto('alert_rule_state').values({ rule_id: ruleId, page: '', last_value: 1, updated_at: now }).execute();
  await db.insertInto('alert_cooldowns').values({ rule_id: ruleId, page: '/', until: now + 1, alert_id: alertId }).execute();

  await db.insertInto('annotations').values({ id: id(), site_id: siteId, page: null, message: 'release', author: null, created_at: now }).execute();
  await db.insertInto('funnels').values({ id: id(), site_id: siteId, name: 'Checkout', steps: '["/cart","/checkout"]', window_minutes: 60, created_by: null, created_at: now, updated_at: now }).execute();
  const webhookId = id();
  await db.insertInto('webhooks').values({
    id: webhookId, site_id: siteId, url: 'https://hooks.example/x', events: '["alert.fired"]', secret_enc: 'sealed', enabled: 1,
    created_at: now, updated_at: now, previous_secret_enc: null, previous_secret_expires_at: null,
  }).execute();
  const deliveryId = id();
  await db.insertInto('webhook_deliveries').values({
    id: deliveryId, webhook_id: webhookId, site_id: siteId, event_type: 'alert.fired', event_id: id(), payload: '{}', status: 'failed', attempts: 1,
    next_attempt_at: null, last_status_code: 500, last_error: null, created_at: now, updated_at: now, delivered_at: null,
  }).execute();
  await db.insertInto('delivery_attempts').values({ id: id(), site_id: siteId, delivery_id: deliveryId, attempt: 1, status_code: 500, latency_ms: 3, error: null, created_at: now }).execute();
  await db.insertInto('integrations').values({ id: id(), site_id: siteId, provider: `p-${hex32()}`, config_enc: 'sealed', config_masked: '{}', created_at: now, updated_at: now }).execute();
  await db.insertInto('sdk_configs').values({ id: id(), site_id: siteId, environment: `e-${hex32().slice(0, 8)}`, config: '{}', updated_at: now }).execute();
  await db.insertInto('outbox').values({ id: id(), site_id: siteId, kind: 'alert.fired', payload: '{}', status: 'pending', attempts: 0, next_attempt_at: now, created_at: now, processed_at: null }).execute();
  await db.insertInto('api_keys').values({
    id: id(), org_id: orgId, site_id: siteId, key_type: 'publishable', name: null, scopes: '["ingest:write"]', key_hash: hex32(), key_hint: 'abcd',
    created_by: null, created_at: now, expires_at: null, revoked_at: null, last_used_at: null,
  }).execute();
  // An OAuth connection to the site, with a token of its grant (which goes with it).
  const owner = await db.selectFrom('memberships').select('user_id').where('org_id', '=', orgId).executeTakeFirstOrThrow();
  const grantId = `g-${hex32()}`;
  await db.insertInto('oauth_grants').values({
    id: id(), grant_id: grantId, client_id: 'seed-client', client_name: 'Seed', redirect_uri: 'http://127.0.0.1:9/cb', user_id: owner.user_id,
    org_id: orgId, site_id: siteId, access: 'read', created_at: now, last_used_at: null, revoked_at: null,
  }).execute();
  await db.insertInto('oauth_records').values({ model: 'AccessToken', id_hash: hex32(), payload: 'sealed', grant_id: grantId, uid_hash: null, expires_at: now + 3_600_000, consumed_at: null }).execute();
  await db.insertInto('pipeline_claims').values({ site_id: siteId, holder: 'seed', cycle_at: now, expires_at: now + 1 })
    .onConflict((oc) => oc.column('site_id').doNothing()).execute();
  await db.insertInto('pipeline_state').values({ site_id: siteId, issues_counted_until: now })
    .onConflict((oc) => oc.column('site_id').doNothing()).execute();
}
