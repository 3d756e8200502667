// Step 4 of a cycle: evaluate every enabled alert rule. Page-level rules run for each page
// scored this cycle that matches their pattern; site-level rules once. A firing condition
// either adds "still firing" to the rule's unresolved alert for the page (re-notifying at
// most once per cooldown while nobody acknowledged it), or claims the cooldown atomically
// and creates a new alert, so two workers evaluating at once fire one alert, never two.
import { padInList } from '../store/in-list.ts';
import { v7 as uuidv7 } from 'uuid';
import type { Kysely } from 'kysely';
import type { AlertRulesTable, AlertsTable, Database } from '../store/tables.ts';
import { notify } from '../events/alert-notifications.ts';
import type { TriggerType } from '../domain/alert-triggers.ts';
import { revenueAtRisk } from './revenue.ts';
import { matchesPattern } from './budgets.ts';
import { BASELINE_MS, MIN_ACTIVE_FOR_WINDOW } from './scoring.ts';
import { alertSeverity, evaluatePage, evaluateSite, SITE_TRIGGERS, type Firing, type HistoryPoint, type PageContext } from './triggers.ts';
import { effectiveConfig } from '../domain/site-config.ts';
import { DEFAULT_CONVERSION_EVENTS } from '../domain/site-settings.ts';
import { ACTIVE_ALERT_STATUSES } from '../domain/statuses.ts';
import { HOUR_MS, DAY_MS } from '../domain/time.ts';

export interface AlertStepResult { fired: number; stillFiring: number }

export async function alertStep(db: Kysely<Database>, siteId: string, cycleAt: number): Promise<AlertStepResult> {
  const rules = await db.selectFrom('alert_rules').selectAll().where('site_id', '=', siteId).where('enabled', '=', 1).execute();
  const result = { fired: 0, stillFiring: 0 };
  if (rules.length === 0) return result;

  const pageRules = rules.filter((r) => !SITE_TRIGGERS.includes(r.trigger_type as TriggerType));
  if (pageRules.length) {
    for (const ctx of await pageContexts(db, siteId, cycleAt)) {
      for (const rule of pageRules.filter((r) => matchesPattern(r.page_pattern, ctx.page))) {
        const firing = evaluatePage(toRule(rule), ctx);
        if (rule.trigger_type === 'new_page' && firing) {
          // Once per page per rule.
          const before = await db.selectFrom('alerts').select('id').where('rule_id', '=', rule.id).where('page', '=', ctx.page).limit(1).executeTakeFirst();
          if (before) continue;
        }
        if (firing) await record(db, rule, ctx.page, ctx.score, firing, cycleAt, result);
      }
    }
  }
  for (const rule of rules.filter((r) => SITE_TRIGGERS.includes(r.trigger_type as TriggerType))) {
    const firing = await evaluateSiteRule(db, rule, siteId, cycleAt);
    if (firing) await record(db, rule, '', null, firing, cycleAt, result);
  }
  return result;
}

const toRule = (r: AlertRulesTable) => ({ trigger_type: r.trigger_type as TriggerType, threshold: r.threshold, config: JSON.parse(r.config) as Record<string, unknown> });

async function pageContexts(db: Kysely<Database>, siteId: string, cycleAt: number): Promise<PageContext[]> {
  const pages = await db.selectFrom('page_scores').selectAll().where('site_id', '=', siteId)
    .where('computed_at', '=', cycleAt).where('stale', '=', 0).execute();
  if (pages.length === 0) return [];
  const history = await db.selectFrom('score_history').select(['page', 'cycle_at', 'raw_score', 'score'])
    .where('site_id', '=', siteId).where('cycle_at', '>=', cycleAt - BASELINE_MS).where('cycle_at', '<', cycleAt)
    .orderBy('cycle_at', 'asc').execute();
  const byPage = new Map<string, HistoryPoint[]>();
  for (const h of history) (byPage.get(h.page) ?? byPage.set(h.page, []).get(h.page)!).push({ at: h.cycle_at, raw: h.raw_score, score: h.score });
  const deploys = await db.selectFrom('deploys').select(['pages_before', 'pages_after'])
    .where('site_id', '=', siteId).where('after_computed_at', '=', cycleAt).execute();
  const deployDelta = new Map<string, number>();
  for (const d of deploys) {
    const before = new Map((JSON.parse(d.pages_before) as { page: string; score: number }[]).map((p) => [p.page, p.score]));
    for (const after of JSON.parse(d.pages_after ?? '[]') as { page: string; score: number; active_users: number }[]) {
      // A page's after-score counts once it holds the 10 users a scoring window aims for: one
      // visitor's mis-click among the deploy's first few is not a spike. Later cycles refresh it.
      if (after.active_users < MIN_ACTIVE_FOR_WINDOW) continue;
      const delta = after.score - (before.get(after.page) ?? 0);
      deployDelta.set(after.page, Math.max(deployDelta.get(after.page) ?? -Infinity, delta));
    }
  }
  const ignored = new Set((await db.selectFrom('ux_issues').select(['page', 'type', 'element_selector']).where('site_id', '=', siteId)
    .where('status', '=', 'ignored').execute()).map((i) => `${i.page}\u0000${i.type}\u0000${i.element_selector}`));
  // Each page's own scoring window: one query per distinct window start (few: whole intervals).
  const signalGroups: { page: string; element: string; signal_type: string; n: string | number | bigint }[] = [];
  for (const start of new Set(pages.map((p) => p.window_start))) {
    signalGroups.push(...await db.selectFrom('signals').select(['page', 'element', 'signal_type', (eb) => eb.fn.countAll().as('n')])
      .where('site_id', '=', siteId).where('page', 'in', padInList(pages.filter((p) => p.window_start === start).map((p) => p.page)))
      .where('element', '!=', '').where('occurred_at', '>=', start).where('occurred_at', '<', cycleAt)
      .groupBy(['page', 'element', 'signal_type']).execute());
  }
  return pages.map((p) => {
    const own = byPage.get(p.page) ?? [];
    const elements = new Map<string, { types: number; count: number }>();
    for (const g of signalGroups) {
      if (g.page !== p.page || ignored.has(`${g.page}\u0000${g.signal_type}\u0000${g.element}`)) continue;
      const e = elements.get(g.element) ?? { types: 0, count: 0 };
      e.types++;
      e.count += Number(g.n);
      elements.set(g.element, e);
    }
    return {
      page: p.page, cycleAt, score: p.score, raw: p.raw_score,
      previousScore: own.length ? own[own.length - 1].score : null,
      firstSeenAt: p.first_seen_at, history: own,
      baselineMature: p.deviation !== null,
      deployDelta: deployDelta.get(p.page) ?? null,
      elements: [...elements.entries()].map(([element, e]) => ({ element, ...e })),
    };
  });
}

async function evaluateSiteRule(db: Kysely<Database>, rule: AlertRulesTable, siteId: string, cycleAt: number): Promise<Firing | null> {
  const config = JSON.parse(rule.config) as { event?: string; window_hours?: number };
  if (rule.trigger_type === 'revenue_threshold') {
    const revenue = await revenueAtRisk(db, siteId, cycleAt);
    const value = revenue.tracking ? revenue.total_monthly_revenue_at_risk : null;
    const state = await db.selectFrom('alert_rule_state').select('last_value').where('rule_id', '=', rule.id).where('page', '=', '').executeTakeFirst();
    if (value !== null) {
      await db.insertInto('alert_rule_state').values({ rule_id: rule.id, page: '', last_value: value, updated_at: cycleAt })
        .onConflict((oc) => oc.columns(['rule_id', 'page']).doUpdateSet({ last_value: value, updated_at: cycleAt })).execute();
    }
    return evaluateSite(toRule(rule), { revenueAtRisk: value, currency: revenue.currency, previousRevenueAtRisk: state?.last_value ?? null, conversions: null, expectedConversions: null });
  }
  const hours = config.window_hours ?? 24;
  const events = config.event ? [config.event] : (await effectiveConfig(db, siteId, 'production')).config.revenue_config?.conversion_events ?? [...DEFAULT_CONVERSION_EVENTS];
  const windowMs = hours * HOUR_MS;
  const count = async (from: number, to: number) => Number((await db.selectFrom('events').select((eb) => eb.fn.countAll().as('n'))
    .where('site_id', '=', siteId).where('type', '=', 'track').where('name', 'in', events)
    .where('occurred_at', '>=', from).where('occurred_at', '<', to).executeTakeFirstOrThrow()).n);
  const conversions = await count(cycleAt - windowMs, cycleAt);
  let previous = 0;
  for (let day = 1; day <= 7; day++) previous += await count(cycleAt - day * DAY_MS - windowMs, cycleAt - day * DAY_MS);
  return evaluateSite(toRule(rule), { revenueAtRisk: null, previousRevenueAtRisk: null, conversions, expectedConversions: previous / 7 });
}

async function record(db: Kysely<Database>, rule: AlertRulesTable, page: string, score: number | null, firing: Firing, cycleAt: number, result: AlertStepResult) {
  await db.transaction().execute(async (trx) => {
    const open = await trx.selectFrom('alerts').selectAll().where('rule_id', '=', rule.id).where('page', page ? '=' : 'is', page || null)
      .where('status', 'in', ACTIVE_ALERT_STATUSES).orderBy('fired_at', 'desc').limit(1).executeTakeFirst();
    if (open) {
      // A cycle run again must not repeat itself.
      const already = await trx.selectFrom('alert_timeline').select('id').where('alert_id', '=', open.id).where('created_at', '=', cycleAt).where('kind', '=', 'still_firing').executeTakeFirst();
      if (already) return;
      await trx.insertInto('alert_timeline').values({ id: uuidv7(), alert_id: open.id, kind: 'still_firing', message: firing.message, details: JSON.stringify({ condition_value: firing.conditionValue, score }), created_at: cycleAt }).execute();
      result.stillFiring++;
      const cooldownMs = rule.cooldown_minutes * 60_000;
      if (open.status === 'fired' && (open.last_notified_at ?? open.fired_at) <= cycleAt - cooldownMs) {
        await trx.updateTable('alerts').set({ last_notified_at: cycleAt, updated_at: cycleAt }).where('id', '=', open.id).execute();
        await trx.insertInto('alert_timeline').values({ id: uuidv7(), alert_id: open.id, kind: 'renotified', message: 'Still firing and not acknowledged: notified again', details: null, created_at: cycleAt }).execute();
        await notify(trx, rule, open, 'fired', cycleAt);
      }
      return;
    }
    const id = uuidv7();
    const claimed = await trx.insertInto('alert_cooldowns').values({ rule_id: rule.id, page, until: cycleAt + rule.cooldown_minutes * 60_000, alert_id: id })
      .onConflict((oc) => oc.columns(['rule_id', 'page']).doUpdateSet({ until: cycleAt + rule.cooldown_minutes * 60_000, alert_id: id }).where('alert_cooldowns.until', '<=', cycleAt))
      .returning('alert_id').executeTakeFirst();
    if (claimed?.alert_id !== id) return; // in cooldown, or another worker fired it
    const breakdown = page ? (await trx.selectFrom('page_scores').select('breakdown').where('site_id', '=', rule.site_id).where('page', '=', page).executeTakeFirst())?.breakdown ?? '[]' : '[]';
    const previous = page ? await trx.selectFrom('score_history').select('score').where('site_id', '=', rule.site_id).where('page', '=', page)
      .where('cycle_at', '<', cycleAt).orderBy('cycle_at', 'desc').limit(1).executeTakeFirst() : undefined;
    const alert: AlertsTable = {
      id, site_id: rule.site_id, rule_id: rule.id, trigger_type: rule.trigger_type, page: page || null,
      severity: alertSeverity(score, firing.conditionValue, rule.threshold), status: 'fired', message: `${rule.name}: ${firing.message}`,
      score_before: previous?.score ?? null, score_after: score, condition_value: firing.conditionValue, threshold: rule.threshold,
      breakdown, fired_at: cycleAt, acknowledged_at: null, investigating_at: null, resolved_at: null, resolved_reason: null,
      last_notified_at: cycleAt, created_at: cycleAt, updated_at: cycleAt,
    };
    await trx.insertInto('alerts').values(alert).execute();
    await trx.insertInto('alert_timeline').values({ id: uuidv7(), alert_id: id, kind: 'fired', message: alert.message, details: JSON.stringify({ condition_value: firing.conditionValue, threshold: rule.threshold, score }), created_at: cycleAt }).execute();
    await notify(trx, rule, alert, 'fired', cycleAt);
    result.fired++;
  });
}


