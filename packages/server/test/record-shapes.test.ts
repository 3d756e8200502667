// One shape per record (issue 27 item 4): an issue or an alert is the same record wherever a
// route returns it. GET /v1/query/page's issues and active alerts are compared, key for key and
// value for value, with the same rows as GET /v1/query/issues and GET /v1/query/alerts list
// them. Both dialects.
import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { eachDialect, useHarness } from './helpers/harness.ts';
import { MIN, queryOk, sendImport } from './helpers/ingest-kit.ts';

/** What a row of the issue list adds to the record (docs/api.md, "Issues"). */
const LIST_ONLY = ['daily_counts', 'window_from', 'window_to'];
const without = (row: Record<string, unknown>, keys: string[]) => Object.fromEntries(Object.entries(row).filter(([k]) => !keys.includes(k)));

eachDialect('record shapes', ({ name }) => {
  const h = useHarness(name, { raisedLimits: true });

  it("gives /query/page the same issue and alert records as /query/issues and /query/alerts", async () => {
    const org = await h.org('Shapes');
    const at = h.clock.now();
    await sendImport(h, org, 'a'.repeat(32), [{ type: 'pageview', ts: at - MIN, page: '/checkout' }]);
    const issueId = randomUUID();
    await h.store.db.insertInto('ux_issues').values({
      id: issueId, site_id: org.site_id, fingerprint: randomUUID(), title: 'Rage clicks on Pay', page: '/checkout', element_selector: 'button.pay',
      element_label: 'Pay', type: 'rage_click', severity: 'high', severity_score: 61, severity_manual: null, status: 'open', assigned_to: 'ana',
      signal_count: 9, session_count: 4, user_count: 3, first_seen_at: at - 60 * MIN, last_seen_at: at - MIN, resolved_at: null, ignored_at: null,
      status_changed_at: at, created_at: at, updated_at: at, ticket_provider: 'linear', ticket_id: 'ENG-1', ticket_url: 'https://linear.app/x/ENG-1',
      users_7d: 5, signal_weight: 25, revenue_at_risk_cents: 12_345, priority: 42.5, priority_reason: 'high; 5 users in 7 days',
    }).execute();
    const ruleId = randomUUID();
    await h.store.db.insertInto('alert_rules').values({
      id: ruleId, site_id: org.site_id, name: 'Checkout watch', trigger_type: 'spike', threshold: 50, cooldown_minutes: 60,
      channels: '[]', page_pattern: '/checkout', slack_channel: null, config: '{}', enabled: 1, created_at: at, updated_at: at,
    }).execute();
    const alertId = randomUUID();
    await h.store.db.insertInto('alerts').values({
      id: alertId, site_id: org.site_id, rule_id: ruleId, trigger_type: 'spike', page: '/checkout', severity: 'warning', status: 'fired',
      message: 'Checkout above 50', score_before: 40, score_after: 55, condition_value: 55, threshold: 50,
      breakdown: JSON.stringify([{ signal: 'rage_click', count: 9, weight: 25, weighted_score: 55, percentage: 100 }]),
      fired_at: at, acknowledged_at: null, investigating_at: null, resolved_at: null, resolved_reason: null, last_notified_at: at,
      created_at: at, updated_at: at,
    }).execute();

    const token = org.keys.secret;
    const page = await queryOk(h, token, '/v1/query/page?page=/checkout');
    const issues = await queryOk(h, token, '/v1/query/issues');
    const alerts = await queryOk(h, token, '/v1/query/alerts');

    const pageIssue = page.issues.find((i: { id: string }) => i.id === issueId);
    const listIssue = issues.issues.find((i: { id: string }) => i.id === issueId);
    expect(Object.keys(pageIssue).sort()).toEqual(Object.keys(without(listIssue, LIST_ONLY)).sort());
    expect(pageIssue).toEqual(without(listIssue, LIST_ONLY));
    // The fields the page's issues gained: they carry the stored values.
    expect(pageIssue).toMatchObject({
      site_id: org.site_id, severity_source: 'computed', ticket: { provider: 'linear', id: 'ENG-1', url: 'https://linear.app/x/ENG-1' },
      users_7d: 5, revenue_at_risk_cents: 12_345, priority: 42.5, priority_reason: 'high; 5 users in 7 days',
    });

    const pageAlert = page.active_alerts.find((a: { id: string }) => a.id === alertId);
    const listAlert = alerts.alerts.find((a: { id: string }) => a.id === alertId);
    expect(Object.keys(pageAlert).sort()).toEqual(Object.keys(listAlert).sort());
    expect(pageAlert).toEqual(listAlert);
    expect(pageAlert).toMatchObject({ site_id: org.site_id, rule_name: 'Checkout watch', breakdown: [{ signal: 'rage_click', count: 9 }] });
  });
});
