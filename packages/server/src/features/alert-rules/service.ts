// Alert rules: validated per trigger (threshold bounds, config), defaults of DOMAIN.md.
// A rule is found by id only within the caller's tenancy (rowInTenant); else 404.
import { v7 as uuidv7 } from 'uuid';
import { iso } from '../../clock.ts';
import { recordAudit } from '../../audit/record.ts';
import type { ServiceContext } from '../../domain/context.ts';
import { invalidInput } from '../../domain/errors.ts';
import { cleanName } from '../../domain/clean-input.ts';
import { resolveSite, rowInTenant } from '../../domain/tenancy.ts';
import type { AlertRulesTable } from '../../store/tables.ts';
import { CONFIG_CHECKS, THRESHOLD_BOUNDS, type AlertRuleRecord, type CreateAlertRuleBody, type UpdateAlertRuleBody } from './schemas.ts';
import type { TriggerType } from '../../domain/alert-triggers.ts';
import { checkFailure } from '../../domain/validation-error.ts';
import { channelSetup, undeliverableChannels, type ChannelSetup } from '../../domain/channel-setup.ts';

export function toRuleRecord(r: AlertRulesTable, setup: ChannelSetup): AlertRuleRecord {
  const channels = JSON.parse(r.channels) as AlertRuleRecord['channels'];
  return {
    id: r.id, site_id: r.site_id, name: r.name, trigger_type: r.trigger_type, threshold: r.threshold,
    cooldown_minutes: r.cooldown_minutes, channels, page_pattern: r.page_pattern,
    slack_channel: r.slack_channel, config: JSON.parse(r.config), enabled: r.enabled === 1,
    undeliverable_channels: undeliverableChannels(channels, setup),
    created_at: iso(r.created_at), updated_at: iso(r.updated_at),
  };
}

/** SMTP_URL, as the route knows it from the server's config: email delivers only with it. */
interface Delivery { smtpUrl: string | null }

function checkRule(trigger: TriggerType, threshold: number, pagePattern: string, config: Record<string, unknown>) {
  const [min, max] = THRESHOLD_BOUNDS[trigger];
  if (!Number.isFinite(threshold) || threshold < min || threshold > max) {
    throw invalidInput('threshold', `must be between ${min} and ${max} for ${trigger}`);
  }
  if (pagePattern !== '*' && !pagePattern.startsWith('/')) throw invalidInput('page_pattern', 'must be *, a path, or a path ending in * for a prefix');
  if (pagePattern.slice(0, -1).includes('*')) throw invalidInput('page_pattern', 'may hold * only at its end');
  const check = CONFIG_CHECKS[trigger];
  if (!check.Check(config)) throw checkFailure(check, config, 'config');
}

export async function listRules({ ctx, input, delivery }: { ctx: ServiceContext; input: { site_id?: string }; delivery: Delivery }): Promise<{ rules: AlertRuleRecord[] }> {
  const site = await resolveSite(ctx, input.site_id);
  const rows = await ctx.db.selectFrom('alert_rules').selectAll().where('site_id', '=', site.id).orderBy('created_at').orderBy('id').execute();
  const setup = await channelSetup(ctx.db, site.id, delivery.smtpUrl);
  return { rules: rows.map((r) => toRuleRecord(r, setup)) };
}

export async function createRule({ ctx, input, delivery }: { ctx: ServiceContext; input: CreateAlertRuleBody; delivery: Delivery }): Promise<AlertRuleRecord> {
  const { auth, now } = ctx;
  const siteId = (await resolveSite(ctx, input.site_id)).id;
  const row: AlertRulesTable = {
    id: uuidv7(), site_id: siteId, name: cleanName(input.name), trigger_type: input.trigger_type, threshold: input.threshold,
    cooldown_minutes: input.cooldown_minutes ?? 60, channels: JSON.stringify(input.channels ?? []),
    page_pattern: input.page_pattern ?? '*', slack_channel: input.slack_channel ?? null, config: JSON.stringify(input.config ?? {}),
    enabled: input.enabled === false ? 0 : 1, created_at: now, updated_at: now,
  };
  checkRule(input.trigger_type, row.threshold, row.page_pattern, input.config ?? {});
  await ctx.db.transaction().execute(async (trx) => {
    await trx.insertInto('alert_rules').values(row).execute();
    await recordAudit(trx, ctx, { action: 'alert_rule.created', targetType: 'alert_rule', targetId: row.id, siteId, details: { trigger_type: row.trigger_type } });
  });
  return toRuleRecord(row, await channelSetup(ctx.db, siteId, delivery.smtpUrl));
}

export async function updateRule({ ctx, input: { rule_id, ...input }, delivery }: { ctx: ServiceContext; input: UpdateAlertRuleBody & { rule_id: string }; delivery: Delivery }): Promise<AlertRuleRecord> {
  const { auth, now } = ctx;
  const rule = await rowInTenant(ctx, 'alert_rules', rule_id, 'Alert rule');
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
  await ctx.db.transaction().execute(async (trx) => {
    const { id: _id, site_id: _site, created_at: _created, ...changes } = next;
    await trx.updateTable('alert_rules').set(changes).where('id', '=', rule.id).execute();
    await recordAudit(trx, ctx, { action: 'alert_rule.updated', targetType: 'alert_rule', targetId: rule.id, siteId: rule.site_id, details: { fields: Object.keys(input) } });
  });
  return toRuleRecord(next, await channelSetup(ctx.db, rule.site_id, delivery.smtpUrl));
}

export async function deleteRule({ ctx, input: { rule_id } }: { ctx: ServiceContext; input: { rule_id: string } }): Promise<{ id: string; deleted: true }> {
  const { auth, now } = ctx;
  const rule = await rowInTenant(ctx, 'alert_rules', rule_id, 'Alert rule');
  await ctx.db.transaction().execute(async (trx) => {
    await trx.deleteFrom('alert_rule_state').where('rule_id', '=', rule.id).execute();
    await trx.deleteFrom('alert_cooldowns').where('rule_id', '=', rule.id).execute();
    await trx.deleteFrom('alert_rules').where('id', '=', rule.id).execute();
    await recordAudit(trx, ctx, { action: 'alert_rule.deleted', targetType: 'alert_rule', targetId: rule.id, siteId: rule.site_id });
  });
  return { id: rule_id, deleted: true };
}
