// Alert rules: validated per trigger (threshold bounds, config), defaults of DOMAIN.md.
import { v7 as uuidv7 } from 'uuid';
import { iso } from '../../clock.ts';
import { recordAudit } from '../../audit/record.ts';
import type { AuthContext } from '../../domain/context.ts';
import { AppError, invalidInput } from '../../domain/errors.ts';
import { siteInScope } from '../../domain/tenancy.ts';
import type { Store } from '../../store/db.ts';
import type { AlertRulesTable } from '../../store/tables.ts';
import { cleanName } from '../sites/service.ts';
import { CONFIG_CHECKS, THRESHOLD_BOUNDS, type AlertRuleRecord, type CreateAlertRuleBody, type UpdateAlertRuleBody } from './schemas.ts';
import type { TriggerType } from '../../domain/alert-triggers.ts';
import { firstFailure } from '../../ingest/schemas.ts';

export function toRuleRecord(r: AlertRulesTable): AlertRuleRecord {
  return {
    id: r.id, site_id: r.site_id, name: r.name, trigger_type: r.trigger_type, threshold: r.threshold,
    cooldown_minutes: r.cooldown_minutes, channels: JSON.parse(r.channels), page_pattern: r.page_pattern,
    slack_channel: r.slack_channel, config: JSON.parse(r.config), enabled: r.enabled === 1,
    created_at: iso(r.created_at), updated_at: iso(r.updated_at),
  };
}

function checkRule(trigger: TriggerType, threshold: number, pagePattern: string, config: Record<string, unknown>) {
  const [min, max] = THRESHOLD_BOUNDS[trigger];
  if (!Number.isFinite(threshold) || threshold < min || threshold > max) {
    throw invalidInput('threshold', `must be between ${min} and ${max} for ${trigger}`);
  }
  if (pagePattern !== '*' && !pagePattern.startsWith('/')) throw invalidInput('page_pattern', 'must be *, a path, or a path ending in * for a prefix');
  if (pagePattern.slice(0, -1).includes('*')) throw invalidInput('page_pattern', 'may hold * only at its end');
  const check = CONFIG_CHECKS[trigger];
  if (!check.Check(config)) {
    const failure = firstFailure(check, config);
    throw invalidInput(failure.field === 'body' ? 'config' : `config.${failure.field}`, failure.reason);
  }
}

export async function listRules(store: Store, siteId: string) {
  const rows = await store.db.selectFrom('alert_rules').selectAll().where('site_id', '=', siteId).orderBy('created_at').orderBy('id').execute();
  return rows.map(toRuleRecord);
}

export async function createRule(store: Store, auth: AuthContext, siteId: string, input: CreateAlertRuleBody, now: number) {
  const row: AlertRulesTable = {
    id: uuidv7(), site_id: siteId, name: cleanName(input.name), trigger_type: input.trigger_type, threshold: input.threshold,
    cooldown_minutes: input.cooldown_minutes ?? 60, channels: JSON.stringify(input.channels ?? []),
    page_pattern: input.page_pattern ?? '*', slack_channel: input.slack_channel ?? null, config: JSON.stringify(input.config ?? {}),
    enabled: input.enabled === false ? 0 : 1, created_at: now, updated_at: now,
  };
  checkRule(input.trigger_type, row.threshold, row.page_pattern, input.config ?? {});
  await store.db.transaction().execute(async (trx) => {
    await trx.insertInto('alert_rules').values(row).execute();
    await recordAudit(trx, auth, { action: 'alert_rule.created', targetType: 'alert_rule', targetId: row.id, siteId, details: { trigger_type: row.trigger_type } }, now);
  });
  return toRuleRecord(row);
}

/** A rule the credential may change: within its org, and its site for a site-scoped key. */
async function loadRule(store: Store, auth: AuthContext, id: string) {
  const rule = await store.db.selectFrom('alert_rules').innerJoin('sites', 'sites.id', 'alert_rules.site_id').selectAll('alert_rules')
    .where('alert_rules.id', '=', id.toLowerCase()).where('sites.org_id', '=', auth.org.id).where('sites.deleted_at', 'is', null).executeTakeFirst();
  if (!rule || (auth.site && auth.site.id !== rule.site_id)) throw new AppError('not_found', 'Alert rule not found');
  await siteInScope({ db: store.db, auth: auth }, rule.site_id);
  return rule;
}

export async function updateRule(store: Store, auth: AuthContext, id: string, input: UpdateAlertRuleBody, now: number) {
  const rule = await loadRule(store, auth, id);
  const next: AlertRulesTable = {
    ...rule,
    name: input.name === undefined ? rule.name : cleanName(input.name),
    threshold: input.threshold ?? rule.threshold,
    cooldown_minutes: input.cooldown_minutes ?? rule.cooldown_minutes,
    channels: input.channels === undefined ? rule.channels : JSON.stringify(input.channels),
    page_pattern: input.page_pattern ?? rule.page_pattern,
    slack_channel: input.slack_channel === undefined ? rule.slack_channel : input.slack_channel,
    config: input.config === undefined ? rule.config : JSON.stringify(input.config),
    enabled: input.enabled === undefined ? rule.enabled : input.enabled ? 1 : 0,
    updated_at: now,
  };
  checkRule(next.trigger_type as TriggerType, next.threshold, next.page_pattern, JSON.parse(next.config));
  await store.db.transaction().execute(async (trx) => {
    const { id: _id, site_id: _site, created_at: _created, ...changes } = next;
    await trx.updateTable('alert_rules').set(changes).where('id', '=', rule.id).execute();
    await recordAudit(trx, auth, { action: 'alert_rule.updated', targetType: 'alert_rule', targetId: rule.id, siteId: rule.site_id, details: { fields: Object.keys(input) } }, now);
  });
  return toRuleRecord(next);
}

export async function deleteRule(store: Store, auth: AuthContext, id: string, now: number) {
  const rule = await loadRule(store, auth, id);
  await store.db.transaction().execute(async (trx) => {
    await trx.deleteFrom('alert_rule_state').where('rule_id', '=', rule.id).execute();
    await trx.deleteFrom('alert_cooldowns').where('rule_id', '=', rule.id).execute();
    await trx.deleteFrom('alert_rules').where('id', '=', rule.id).execute();
    await recordAudit(trx, auth, { action: 'alert_rule.deleted', targetType: 'alert_rule', targetId: rule.id, siteId: rule.site_id }, now);
  });
}
