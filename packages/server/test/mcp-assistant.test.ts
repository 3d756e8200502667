// What an assistant needs beyond the routes' answers, over the SDK's client on Streamable HTTP,
// on both dialects: the sites it may read (list_sites, whoami), dashboard links beside every
// issue, session, alert and deploy id (text and structured content), errors that say what to
// send instead, and update_issue retried safely with a confirmation that echoes what it wrote.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { DEFAULT_RATE_LIMITS } from '../src/config.ts';
import { bearer, eachDialect, T0, testConfig, useHarness } from './helpers/harness.ts';
import { callError, callOk, connect, listen, routeData, withoutLinks, type Connected } from './helpers/mcp-kit.ts';
import { generatePlan } from '../src/simulate/generate.ts';
import { seedStore } from '../src/simulate/run.ts';

const PUBLIC = 'http://127.0.0.1:8787';
const ISSUE_STATUSES = 'open, triaged, in_progress, verified, resolved, ignored';
const MINUTE = 60_000;

eachDialect('MCP for assistants', (dialect) => {
  const h = useHarness(dialect.name, { raisedLimits: true });
  let org: Awaited<ReturnType<typeof h.org>>;
  let base: string;
  let secondSite: string;
  let reader: Connected;
  let writer: Connected;
  let person: Connected;

  beforeAll(async () => {
    org = await h.org('Assist');
    const plan = generatePlan({ days: 2, sessionsPerDay: 60, seed: 'assist', end: T0 });
    await seedStore({ store: h.store, config: testConfig(), siteId: org.site_id, secretKey: org.keys.secret, plan, deliver: false });
    const site = await h.app.inject({ method: 'POST', url: '/v1/manage/site', headers: bearer(org.jwt), payload: { name: 'Second shop', url: 'https://second.example' } });
    expect(site.statusCode, site.body).toBe(201);
    secondSite = site.json().data.id;
    base = await listen(h);
    reader = await connect('http', base, org.keys.mcp);
    writer = await connect('http', base, org.keys.secret);
    person = await connect('http', base, org.jwt);
  }, 120_000);

  afterAll(async () => {
    await reader?.close();
    await writer?.close();
    await person?.close();
  });

  it('list_sites: a site-scoped key sees its own site, an org-level user every site; whoami says the same', async () => {
    const own = await callOk(reader.client, 'list_sites');
    expect(own.data).toEqual({ sites: [{ id: org.site_id, name: 'Assist site', url: expect.any(String) }], total: 1 });
    expect(own.text).toContain(`site_id ${org.site_id}`);
    const all = await callOk(person.client, 'list_sites');
    expect(all.data.sites.map((s: { id: string }) => s.id)).toEqual([org.site_id, secondSite]);
    expect(all.data.sites[1]).toEqual({ id: secondSite, name: 'Second shop', url: 'https://second.example' });
    for (const s of all.data.sites) expect(all.text).toContain(`${s.name} (${s.url}): site_id ${s.id}`);

    const who = await callOk(person.client, 'whoami');
    expect(who.data.site).toBeNull();
    expect(who.data.sites).toEqual(all.data.sites);
    expect(who.text).toContain(`Second shop (https://second.example): site_id ${secondSite}`);
    expect((await callOk(reader.client, 'whoami')).data.sites).toEqual(own.data.sites);
  });

  it('puts a dashboard link beside every issue, session, alert and deploy id, in the text too, and keeps the route\'s fields', async () => {
    const issues = await callOk(reader.client, 'list_issues', { limit: 5 });
    expect(issues.data.issues.length).toBeGreaterThan(0);
    for (const i of issues.data.issues) expect(i.dashboard_url).toBe(`${PUBLIC}/app/#/issues/${i.id}`);
    expect(issues.text).toContain(`${issues.data.issues[0].id} (${PUBLIC}/app/#/issues/${issues.data.issues[0].id})`);

    const sessions = await callOk(reader.client, 'find_sessions', { limit: 3 });
    for (const s of sessions.data.sessions) expect(s.dashboard_url).toBe(`${PUBLIC}/app/#/sessions/${s.session_id}`);
    expect(sessions.text).toContain(`(${PUBLIC}/app/#/sessions/${sessions.data.sessions[0].session_id})`);

    const issue = await callOk(reader.client, 'get_issue', { issue_id: issues.data.issues[0].id });
    expect(issue.data.dashboard_url).toBe(`${PUBLIC}/app/#/issues/${issue.data.id}`);
    for (const s of issue.data.linked_sessions) expect(s.dashboard_url).toBe(`${PUBLIC}/app/#/sessions/${s.session_id}`);

    const alerts = await callOk(reader.client, 'list_alerts');
    for (const a of alerts.data.alerts) expect(a.dashboard_url).toBe(`${PUBLIC}/app/#/alerts/${a.id}`);
    const deploys = await callOk(reader.client, 'list_deploys');
    expect(deploys.data.deploys.length).toBeGreaterThan(0);
    for (const d of deploys.data.deploys) expect(d.dashboard_url).toBe(`${PUBLIC}/app/#/deploys`);
    expect(deploys.text).toContain(`${deploys.data.deploys[0].id} (${PUBLIC}/app/#/deploys)`);

    // The contract's issue_url (an API path) stays; the dashboard link is beside it.
    const fixes = await callOk(reader.client, 'get_recommendations', { limit: 3 });
    for (const r of fixes.data.recommendations) {
      expect(r.issue_url).toBe(`/v1/query/issues/${r.issue_id}`);
      expect(r.dashboard_url).toBe(`${PUBLIC}/app/#/issues/${r.issue_id}`);
    }
  });

  it('lists the allowed values of a closed field, and names an alert status given to an issue (and the reverse)', async () => {
    const issueId = (await callOk(reader.client, 'list_issues', { limit: 1 })).data.issues[0].id;
    const alert = await callError(writer.client, 'update_issue', { issue_id: issueId, status: 'acknowledged' });
    expect(alert.code).toBe('invalid_status');
    expect(alert.text).toContain('"acknowledged" is an alert status');
    expect(alert.text).toContain(`an issue's status is one of ${ISSUE_STATUSES}`);
    expect(alert.details?.allowed).toEqual(ISSUE_STATUSES.split(', '));

    const unknown = await callError(reader.client, 'list_issues', { status: 'sleeping' });
    expect(unknown.text).toContain(`status: "sleeping" is not one of the allowed values: ${ISSUE_STATUSES}, regressed`);
    const sort = await callError(reader.client, 'list_issues', { sort: 'newest' });
    expect(sort.text).toContain('sort: "newest" is not one of the allowed values: priority, severity, users, revenue, last_seen');
    const severity = await callError(writer.client, 'update_issue', { issue_id: issueId, severity: 'urgent' });
    expect(severity.text).toContain('is not one of the allowed values: low, medium, high, critical');

    const alertId = (await callOk(reader.client, 'list_alerts', { limit: 1 })).data.alerts[0].id;
    const reverse = await callError(writer.client, 'update_alert', { alert_id: alertId, status: 'triaged' });
    expect(reverse.text).toContain('"triaged" is an issue status');
    expect(reverse.text).toContain("an alert's status is one of acknowledged, investigating, resolved");
  });

  it('says "nothing to update" with the fields to give, and "offset past the end" with the total', async () => {
    const issueId = (await callOk(reader.client, 'list_issues', { limit: 1 })).data.issues[0].id;
    const empty = await callError(writer.client, 'update_issue', { issue_id: issueId });
    expect(empty.code).toBe('invalid_input');
    expect(empty.text).toContain('nothing to update: give at least one of status, note, assigned_to, severity');
    const emptyAlert = await callError(writer.client, 'update_alert', { alert_id: (await callOk(reader.client, 'list_alerts', { limit: 1 })).data.alerts[0].id });
    expect(emptyAlert.text).toContain('nothing to update: give at least one of status, resolved_reason');

    const { total } = (await callOk(reader.client, 'list_issues', { limit: 1 })).data;
    const past = await callError(reader.client, 'list_issues', { offset: 1_000_000 });
    expect(past.code).toBe('invalid_input');
    expect(past.text).toContain(`offset 1000000 is past the end (total ${total})`);
    expect(past.details).toMatchObject({ field: 'offset', total });
    const sessions = (await callOk(reader.client, 'find_sessions', { limit: 1 })).data.total;
    expect((await callError(reader.client, 'find_sessions', { offset: sessions })).text).toContain(`offset ${sessions} is past the end (total ${sessions})`);
    // The last row is still a page.
    expect((await callOk(reader.client, 'list_issues', { offset: total - 1 })).data.issues).toHaveLength(1);
  });

  it('answers an unknown selector with the closest selectors the page knows', async () => {
    const issue = (await callOk(reader.client, 'list_issues', { limit: 50 })).data.issues.find((i: { element_selector: string }) => i.element_selector);
    const known = await callOk(reader.client, 'get_element_heatmap', { page: issue.page, selector: issue.element_selector });
    expect(known.data.count).toBeGreaterThan(0);
    const typo = `${issue.element_selector}x`;
    const error = await callError(reader.client, 'get_element_heatmap', { page: issue.page, selector: typo });
    expect(error.code).toBe('not_found');
    expect((error.details?.closest as string[])[0]).toBe(issue.element_selector);
    expect(error.text).toContain(`the closest known selectors of that page are ${issue.element_selector}`);
  });

  it('takes numeric strings where a number is meant, checked as numbers', async () => {
    const asText = await callOk(reader.client, 'get_trends', { days: '3' });
    const asNumber = await callOk(reader.client, 'get_trends', { days: 3 });
    expect(asText.data).toEqual(asNumber.data);
    expect((await callOk(reader.client, 'list_issues', { limit: '2' })).data.issues).toHaveLength(2);
    const tooMany = await callError(reader.client, 'get_trends', { days: '91' });
    expect(tooMany.details?.field).toBe('days');
    expect(tooMany.text).toContain('days: must be <= 90');
    // A text field keeps its text: a numeric q is searched as written.
    expect((await callOk(reader.client, 'list_issues', { q: '404' })).data.total).toBeGreaterThanOrEqual(0);
  });

  it('answers arguments over 64 KiB as a tool error with the code, not a refused request', async () => {
    const result = await reader.client.callTool({ name: 'list_issues', arguments: { q: 'x'.repeat(70 * 1024) } });
    expect(result.isError).toBe(true);
    const error = await callError(reader.client, 'list_issues', { q: 'x'.repeat(70 * 1024) });
    expect(error.code).toBe('payload_too_large');
    expect(error.text).toMatch(/^payload_too_large \(413\): The arguments are \d+ bytes; at most 65536 bytes/);
    // A body over the endpoint's 1 MiB is refused as any request is: 413 in the envelope.
    const huge = await h.app.inject({
      method: 'POST', url: '/v1/mcp', headers: { ...bearer(org.keys.mcp), 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_issues', arguments: { q: 'x'.repeat(1024 * 1024) } } }),
    });
    expect(huge.statusCode).toBe(413);
    expect(huge.json().error.code).toBe('payload_too_large');
  });

  it('update_issue retried with the same note adds it once, and echoes what it wrote', async () => {
    const issueId = (await callOk(reader.client, 'list_issues', { limit: 1 })).data.issues[0].id;
    const args = { issue_id: issueId, status: 'triaged', assigned_to: 'dana@shop.example', note: 'Reproduced on Safari; fix scheduled' };
    const notes = async () => (await routeData(h, org.keys.secret, `/v1/query/issues/${issueId}`)).activity
      .filter((a: { kind: string; message: string }) => a.kind === 'note' && a.message === args.note).length;

    const first = await callOk(writer.client, 'update_issue', args);
    expect(first.data.written).toEqual({ status: 'triaged', assigned_to: 'dana@shop.example', note: args.note, note_repeated: false });
    expect(first.text).toContain(`Updated: status triaged, assigned to dana@shop.example, note "${args.note}".`);
    expect(first.data.dashboard_url).toBe(`${PUBLIC}/app/#/issues/${issueId}`);
    const retried = await callOk(writer.client, 'update_issue', args);
    expect(retried.data.written.note_repeated).toBe(true);
    expect(retried.text).toContain('not added again');
    expect(await notes()).toBe(1);

    // Another credential's note is its own; so is the same note after the window.
    await callOk(person.client, 'update_issue', { issue_id: issueId, note: args.note });
    expect(await notes()).toBe(2);
    h.clock.advance(11 * MINUTE);
    const later = await callOk(writer.client, 'update_issue', { issue_id: issueId, note: args.note });
    expect(later.data.written).toEqual({ note: args.note, note_repeated: false });
    expect(await notes()).toBe(3);
  });

  it('update_alert retried with the status it already has changes nothing and tells no one again, and echoes what it wrote', async () => {
    const fired = (await callOk(reader.client, 'list_alerts', { status: 'fired', limit: 1 })).data.alerts[0];
    expect(fired).toBeDefined();
    const timeline = async () => (await routeData(h, org.keys.secret, `/v1/query/alerts/${fired.id}`)).timeline
      .filter((t: { kind: string }) => t.kind === 'acknowledged').length;
    const outbox = async () => Number((await h.store.db.selectFrom('outbox').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    const first = await callOk(writer.client, 'update_alert', { alert_id: fired.id, status: 'acknowledged' });
    expect(first.data).toMatchObject({ id: fired.id, status: 'acknowledged', written: { status: 'acknowledged', unchanged: false } });
    expect(first.text).toMatch(/^Updated: status acknowledged\. Now: /);
    const jobs = await outbox();
    const retried = await callOk(writer.client, 'update_alert', { alert_id: fired.id, status: 'acknowledged' });
    expect(retried.data).toMatchObject({ id: fired.id, status: 'acknowledged', written: { status: 'acknowledged', unchanged: true } });
    expect(retried.text).toMatch(/^Already acknowledged: nothing changed, no one told again\. Now: /);
    expect(retried.data.dashboard_url).toBe(`${PUBLIC}/app/#/alerts/${fired.id}`);
    expect(await timeline()).toBe(1);
    expect(await outbox()).toBe(jobs);
  });

  it('add_annotation and record_deploy retried within 10 minutes write once and say so', async () => {
    const note = { message: 'Checkout redesign shipped; watching /checkout', page: '/checkout' };
    const first = await callOk(writer.client, 'add_annotation', note);
    expect(first.data).toMatchObject({ message: note.message, page: '/checkout', repeated: false });
    const again = await callOk(writer.client, 'add_annotation', note);
    expect(again.data).toMatchObject({ id: first.data.id, repeated: true });
    expect(again.text).toContain('not added again');
    const stored = await h.store.db.selectFrom('annotations').select('id').where('site_id', '=', org.site_id).where('message', '=', note.message).execute();
    expect(stored).toHaveLength(1);
    // Another credential's note is its own.
    expect((await callOk(person.client, 'add_annotation', { ...note, site_id: org.site_id })).data.repeated).toBe(false);

    const deploy = await callOk(writer.client, 'record_deploy', { version: 'v-retry-1' });
    expect(deploy.data).toMatchObject({ version: 'v-retry-1', environment: 'production', already_recorded: false });
    const retried = await callOk(writer.client, 'record_deploy', { version: 'v-retry-1' });
    expect(retried.data).toMatchObject({ id: deploy.data.id, already_recorded: true });
    expect(retried.text).toMatch(/^Already recorded within 10 minutes \(not recorded again\): deploy v-retry-1/);
    // Another environment is another deploy; so is the same version after the window.
    expect((await callOk(writer.client, 'record_deploy', { version: 'v-retry-1', environment: 'staging' })).data.already_recorded).toBe(false);
    h.clock.advance(11 * MINUTE);
    expect((await callOk(writer.client, 'record_deploy', { version: 'v-retry-1' })).data.already_recorded).toBe(false);
    const rows = await h.store.db.selectFrom('deploys').select('id').where('site_id', '=', org.site_id).where('version', '=', 'v-retry-1').execute();
    expect(rows).toHaveLength(3);
  });
});

// The MCP budget's refusal as the assistant reads it: a tool error carrying rate_limited and
// retry_after (seconds) in `_meta`, never a transport error (the budget itself: mcp-rate-budget.test.ts).
eachDialect('MCP rate limit as a tool error', (dialect) => {
  const h = useHarness(dialect.name, { config: { rateLimits: { ...DEFAULT_RATE_LIMITS, mcp: 2 } } });
  let reader: Connected;
  beforeAll(async () => {
    const org = await h.org('Budget');
    reader = await connect('http', await listen(h), org.keys.mcp);
  });
  afterAll(async () => reader?.close());

  it('answers the call over the budget with isError, the code and retry_after', async () => {
    await callOk(reader.client, 'whoami');
    await callOk(reader.client, 'list_sites');
    const refused = await reader.client.callTool({ name: 'whoami', arguments: {} }) as CallToolResult;
    expect(refused.isError).toBe(true);
    const error = (refused._meta as Record<string, { code: string; status: number; retry_after: number }>)['mallard/error'];
    expect(error).toMatchObject({ code: 'rate_limited', status: 429 });
    expect(error.retry_after).toBeGreaterThanOrEqual(1);
    expect(error.retry_after).toBeLessThanOrEqual(60);
    expect((refused.content[0] as { text: string }).text).toMatch(new RegExp(`^rate_limited \\(429\\): .*retry after ${error.retry_after} seconds`));
  });
});
