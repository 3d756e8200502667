// The MCP server end to end, on simulated data, on both dialects: the SDK's own client over
// Streamable HTTP (a real listening server) and over stdio (`mallard mcp` spawned as a
// process). Every read tool answers what its route answers in `data`; the write tools change
// what the routes then read; errors carry the API's codes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, eachDialect, T0, testConfig, bearer, type Harness } from './helpers/harness.ts';
import { callError, callOk, connect, listen, routeData, withoutLinks, type Connected, type TransportName } from './helpers/mcp-kit.ts';
import { generatePlan } from '../src/simulate/generate.ts';
import { SHARED_ARGUMENTS } from '../src/mcp/listing.ts';
import { seedStore } from '../src/simulate/run.ts';

const READ_TOOLS = [
  'whoami', 'list_sites', 'get_site_context', 'get_scores', 'get_page', 'get_trends', 'compare_pages', 'get_elements', 'get_element_heatmap',
  'get_page_heatmap', 'get_friction_map', 'get_flows', 'list_issues', 'get_issue', 'list_alerts', 'get_alert', 'list_deploys',
  'get_deploy', 'check_deploy', 'get_session', 'find_sessions', 'get_recommendations', 'get_revenue', 'query_raw', 'get_funnel',
];
const WRITE_TOOLS = ['update_issue', 'update_alert', 'add_annotation', 'record_deploy'];
const q = encodeURIComponent;

type Org = Awaited<ReturnType<Harness['org']>>;
interface Facts { page: string; other: string; selector: string; issueId: string; alertId: string; mcpAlertId: string; deployId: string; sessionId: string; funnelId: string }

/** Each read tool with arguments, and the route that answers the same question. */
function readCases(f: Facts): { tool: string; args: Record<string, unknown>; route: string }[] {
  return [
    { tool: 'whoami', args: {}, route: '/v1/query/whoami' },
    { tool: 'get_site_context', args: {}, route: '/v1/query/mcp/context' },
    { tool: 'get_scores', args: { detail: 'full' }, route: '/v1/query/scores' },
    { tool: 'get_page', args: { page: f.page, detail: 'full' }, route: `/v1/query/page?page=${q(f.page)}` },
    { tool: 'get_trends', args: { page: f.page, days: 3, detail: 'full' }, route: `/v1/query/trends?page=${q(f.page)}&days=3` },
    { tool: 'get_trends', args: { detail: 'full' }, route: '/v1/query/trends' },
    { tool: 'compare_pages', args: { a: f.page, b: f.other }, route: `/v1/query/compare?a=${q(f.page)}&b=${q(f.other)}` },
    { tool: 'get_elements', args: { page: f.page, limit: 5 }, route: `/v1/query/elements?page=${q(f.page)}&limit=5` },
    { tool: 'get_element_heatmap', args: { page: f.page, selector: f.selector, detail: 'full' }, route: `/v1/query/element-heatmap?page=${q(f.page)}&selector=${q(f.selector)}` },
    { tool: 'get_page_heatmap', args: { page: f.page, device: 'desktop', detail: 'full' }, route: `/v1/query/page-heatmap?page=${q(f.page)}&device=desktop` },
    { tool: 'get_friction_map', args: { min_friction_weight: 5, detail: 'full' }, route: '/v1/query/journeys/friction?min_friction_weight=5' },
    { tool: 'get_flows', args: { detail: 'full' }, route: '/v1/query/flows' },
    { tool: 'get_funnel', args: { steps: '/cart,/checkout,/checkout/complete' }, route: '/v1/query/funnel?steps=/cart,/checkout,/checkout/complete' },
    { tool: 'get_funnel', args: { steps: ['/products/*', '/cart'], window_minutes: 30, device: 'desktop' }, route: '/v1/query/funnel?steps=/products/*,/cart&window_minutes=30&device=desktop' },
    { tool: 'list_issues', args: { status: 'open', limit: 3, detail: 'full' }, route: '/v1/query/issues?status=open&limit=3' },
    { tool: 'get_issue', args: { issue_id: f.issueId, detail: 'full' }, route: `/v1/query/issues/${f.issueId}` },
    { tool: 'list_alerts', args: { limit: 50 }, route: '/v1/query/alerts' },
    { tool: 'get_alert', args: { alert_id: f.alertId, detail: 'full' }, route: `/v1/query/alerts/${f.alertId}` },
    { tool: 'list_deploys', args: { limit: 50, detail: 'full' }, route: '/v1/query/deploys' },
    { tool: 'get_deploy', args: { deploy_id: f.deployId, detail: 'full' }, route: `/v1/query/deploys/${f.deployId}` },
    { tool: 'get_session', args: { session_id: f.sessionId, detail: 'full' }, route: `/v1/query/session?session_id=${f.sessionId}` },
    { tool: 'find_sessions', args: { limit: 50 }, route: '/v1/query/sessions' },
    { tool: 'find_sessions', args: { page: '/check*', converted: false, sort: 'duration', limit: 5 }, route: `/v1/query/sessions?page=${q('/check*')}&converted=false&sort=duration&limit=5` },
    { tool: 'get_recommendations', args: { limit: 20 }, route: '/v1/query/recommendations' },
    { tool: 'get_revenue', args: { detail: 'full' }, route: '/v1/query/revenue' },
    { tool: 'query_raw', args: { table: 'ux_issues', limit: 5, sort: 'severity_score' }, route: '/v1/query/raw?table=ux_issues&limit=5&sort=severity_score' },
  ];
}

/** DOMAIN §9's verdict, worked out here from the deploy route's own numbers. */
function expectedVerdict(deploy: { pages_before: { page: string; score: number }[]; pages_after: { page: string; score: number }[] | null; related_issues: { relation: string; severity: string }[] }) {
  const critical = deploy.related_issues.some((i) => i.relation === 'appeared_after' && i.severity === 'critical');
  const high = deploy.related_issues.some((i) => i.relation === 'appeared_after' && i.severity === 'high');
  if (deploy.pages_after === null) return critical ? 'FAIL' : high ? 'WARN' : 'PENDING';
  const before = new Map(deploy.pages_before.map((p) => [p.page, p.score]));
  const rise = Math.max(...deploy.pages_after.map((p) => Math.round((p.score - (before.get(p.page) ?? 0)) * 10) / 10));
  return rise >= 15 || critical ? 'FAIL' : rise >= 5 || high ? 'WARN' : 'PASS';
}

eachDialect('MCP on simulated data', (dialect) => {
  let h: Harness;
  let org: Org;
  let other: Org;
  let base: string;
  let facts: Facts;

  beforeAll(async () => {
    h = await createHarness(dialect.name, { raisedLimits: true });
    org = await h.org('Mcp');
    other = await h.org('Other');
    // A rule whose channel is mcp: its alerts reach the assistant as resources.
    const rule = await h.app.inject({
      method: 'POST', url: '/v1/manage/alert-rules', headers: bearer(org.keys.secret),
      payload: { name: 'Tell the assistant', trigger_type: 'budget', threshold: 10, page_pattern: '/checkout*', channels: ['mcp'] },
    });
    expect(rule.statusCode, rule.body).toBe(201);
    const plan = generatePlan({ days: 2, sessionsPerDay: 80, seed: 'mcp', end: T0 });
    await seedStore({ store: h.store, config: testConfig(), siteId: org.site_id, secretKey: org.keys.secret, plan, deliver: false });
    base = await listen(h);

    const scores = await routeData(h, org.keys.secret, '/v1/query/scores');
    const [page, otherPage] = scores.site.pages.map((p: { page: string }) => p.page);
    const issues = (await routeData(h, org.keys.secret, '/v1/query/issues?status=open&limit=200')).issues;
    const issue = issues.find((i: { page: string; element_selector: string }) => i.page === page && i.element_selector);
    const detail = await routeData(h, org.keys.secret, `/v1/query/issues/${issue.id}`);
    const alerts = (await routeData(h, org.keys.secret, '/v1/query/alerts?limit=200')).alerts;
    const mcpAlert = alerts.find((a: { rule_name: string }) => a.rule_name === 'Tell the assistant');
    const deploys = (await routeData(h, org.keys.secret, '/v1/query/deploys')).deploys;
    facts = {
      page, other: otherPage, selector: issue.element_selector, issueId: issue.id, alertId: alerts[0].id, mcpAlertId: mcpAlert.id,
      deployId: deploys[0].id, sessionId: detail.linked_sessions[0].session_id,
      funnelId: (await h.app.inject({ method: 'POST', url: '/v1/manage/funnels', headers: bearer(org.keys.secret), payload: { name: 'Checkout', steps: ['/cart', '/checkout', 'checkout_completed'], window_minutes: 45 } })).json().data.id,
    };
  }, 120_000);

  afterAll(async () => h?.close());

  for (const transport of ['http', 'stdio'] as TransportName[]) {
    describe(`over ${transport}`, () => {
      let reader: Connected;
      let writer: Connected;
      beforeAll(async () => {
        reader = await connect(transport, base, org.keys.mcp);
        writer = await connect(transport, base, org.keys.secret);
      }, 60_000);
      afterAll(async () => {
        await reader?.close();
        await writer?.close();
      });

      it('writes money as people read it, in the site\'s currency (whole units, grouped), never as raw cents', async () => {
        const { text } = await callOk(reader.client, 'get_revenue');
        expect(text).toMatch(/Revenue at risk: \$[\d,]+ a month/);
        expect(text).not.toMatch(/\d\.\d\d [A-Z]{3}/);
      });

      it('get_funnel runs a saved funnel by id (its window unless given), one line per step', async () => {
        const saved = '/v1/query/funnel?steps=/cart,/checkout,checkout_completed';
        const { data, text } = await callOk(reader.client, 'get_funnel', { funnel_id: facts.funnelId });
        expect(withoutLinks(data)).toEqual({ funnel: expect.objectContaining({ id: facts.funnelId, name: 'Checkout', window_minutes: 45 }), ...await routeData(h, org.keys.mcp, `${saved}&window_minutes=45`) });
        const rows = text.split('\n');
        expect(rows).toHaveLength(4);
        expect(rows[0]).toBe(`Checkout: ${data.entered} sessions entered, ${data.completed} completed (${Math.round((data.completed / data.entered) * 1000) / 10}%), steps within 45 min, ${data.window_from.slice(0, 10)} to ${data.window_to.slice(0, 10)}:`);
        expect(rows[1]).toMatch(new RegExp(`^1\\. /cart: ${data.steps[0].entered} entered, [\\d.]+% went on \\(median (\\d+m )?\\d+s\\)`));
        expect(rows[3]).toMatch(new RegExp(`^3\\. checkout_completed: ${data.steps[2].entered} entered`));
        expect(rows[3]).not.toContain('went on');
        expect(data.entered).toBeGreaterThan(0);
        const wider = await callOk(reader.client, 'get_funnel', { funnel_id: facts.funnelId, window_minutes: 120 });
        expect(withoutLinks(wider.data)).toEqual({ ...withoutLinks(data), ...await routeData(h, org.keys.mcp, `${saved}&window_minutes=120`) });
      });

      it('lists the read tools for an MCP key, and the write tools too for a key with manage:write', async () => {
        const read = (await reader.client.listTools()).tools;
        expect(read.map((t) => t.name).sort()).toEqual([...READ_TOOLS].sort());
        const all = (await writer.client.listTools()).tools;
        expect(all.map((t) => t.name).sort()).toEqual([...READ_TOOLS, ...WRITE_TOOLS].sort());
        for (const tool of all) {
          const write = WRITE_TOOLS.includes(tool.name);
          // A read-only tool lists only the hints that mean something for it (destructive and idempotent apply to writes).
          expect(tool.annotations).toEqual(write ? { readOnlyHint: false, destructiveHint: false, idempotentHint: expect.any(Boolean), openWorldHint: false } : { readOnlyHint: true, openWorldHint: false });
          expect(tool.outputSchema?.type).toBe('object');
          expect(tool.inputSchema).toMatchObject({ type: 'object', additionalProperties: false });
        }
        // Each argument is described once: no description repeats from tool to tool; those many tools
        // share (site_id, offset, ...) are described in the instructions the handshake gives, and
        // listed bare unless a tool says what the argument means there.
        const described = new Map<string, string>();
        let bare = 0;
        for (const tool of all) {
          for (const [field, schema] of Object.entries(tool.inputSchema.properties ?? {})) {
            const description = (schema as { description?: string }).description;
            if (description === undefined) {
              if (SHARED_ARGUMENTS.includes(field)) bare++;
              continue;
            }
            const said = `${field}: ${description}`;
            expect(described.get(said), `"${said}" in ${tool.name} too`).toBeUndefined();
            described.set(said, tool.name);
          }
        }
        expect(bare).toBeGreaterThan(40);
        for (const field of SHARED_ARGUMENTS) expect(reader.client.getInstructions(), field).toMatch(new RegExp(`\\b${field}\\b`));
        const trends = read.find((t) => t.name === 'get_trends')!.inputSchema.properties as Record<string, Record<string, unknown>>;
        expect(trends.days).toMatchObject({ type: 'integer', minimum: 1, maximum: 90, default: 7 });
        expect(read.find((t) => t.name === 'get_site_context')!.description).toMatch(/^Call this first/);
      });

      it('answers every read tool with what its route returns in data', async () => {
        const cases = readCases(facts);
        // check_deploy and list_sites have no route of their own (list_sites: tested in mcp-assistant.test.ts).
        expect(new Set(cases.map((c) => c.tool))).toEqual(new Set(READ_TOOLS.filter((t) => t !== 'check_deploy' && t !== 'list_sites')));
        for (const c of cases) {
          const { data } = await callOk(reader.client, c.tool, c.args);
          // A tool whose own page size leaves rows out says how to get them (answer-size.ts); the rest is the route's.
          delete data.next;
          // The tools add dashboard_url beside ids (and whoami the sites it can read); the rest is the route's.
          const { sites: _sites, ...answer } = withoutLinks(data);
          expect(c.tool === 'whoami' ? answer : withoutLinks(data), c.tool).toEqual(await routeData(h, org.keys.mcp, c.route));
        }
      }, 60_000);

      it('check_deploy gives the latest deploy\'s verdict per page and overall, with reasons', async () => {
        const latest = (await routeData(h, org.keys.mcp, '/v1/query/deploys?limit=1&environment=production')).deploys[0];
        const route = await routeData(h, org.keys.mcp, `/v1/query/deploys/${latest.id}`);
        const { data, text } = await callOk(reader.client, 'check_deploy');
        expect(data.deploy.id).toBe(latest.id);
        expect(data.verdict).toBe(expectedVerdict(route));
        expect(data.reasons.length).toBeGreaterThan(0);
        expect(data.pages.map((p: { page: string }) => p.page).sort()).toEqual((route.pages_after ?? []).map((p: { page: string }) => p.page).sort());
        expect(text.startsWith(`${data.verdict}: deploy ${latest.version}`)).toBe(true);
      });

      it('update_issue changes what GET /v1/query/issues/{id} reads', async () => {
        const note = `Looked at over ${transport}`;
        const { data } = await callOk(writer.client, 'update_issue', { issue_id: facts.issueId, status: 'in_progress', note, assigned_to: 'dana@shop.example' });
        expect(data).toMatchObject({ id: facts.issueId, status: 'in_progress', assigned_to: 'dana@shop.example' });
        const issue = await routeData(h, org.keys.secret, `/v1/query/issues/${facts.issueId}`);
        expect(issue).toMatchObject({ status: 'in_progress', assigned_to: 'dana@shop.example' });
        expect(issue.activity.map((a: { message: string | null }) => a.message)).toContain(note);
        const { code } = await callError(reader.client, 'update_issue', { issue_id: facts.issueId, status: 'triaged' });
        expect(code).toBe('missing_scope');
      });

      it('record_deploy, then check_deploy on it: pending until the pipeline scores traffic after it', async () => {
        const version = `mcp-${transport}`;
        const { data: deploy } = await callOk(writer.client, 'record_deploy', { version, description: 'Recorded by an assistant' });
        const { related_issues: _related, ...route } = await routeData(h, org.keys.secret, `/v1/query/deploys/${deploy.id}`);
        const { already_recorded: again, ...recorded } = withoutLinks(deploy);
        expect(again).toBe(false);
        expect(recorded).toEqual(route);
        const { data: check } = await callOk(reader.client, 'check_deploy', { deploy_id: deploy.id });
        expect(check).toMatchObject({ deploy: { id: deploy.id, version, confusion_after: null }, verdict: 'PENDING', pages: [] });
        const { data: latest } = await callOk(reader.client, 'check_deploy');
        expect(latest.deploy.id).toBe(deploy.id);
      });

      it('stdout carries only JSON-RPC', () => {
        expect(reader.protocolErrors).toEqual([]);
        expect(writer.protocolErrors).toEqual([]);
      });
    });
  }

  describe('over http', () => {
    let reader: Connected;
    beforeAll(async () => { reader = await connect('http', base, org.keys.mcp); });
    afterAll(async () => reader?.close());

    it('answers bad arguments with tool errors carrying the API\'s codes', async () => {
      const cases: [string, Record<string, unknown>, string, string?][] = [
        ['get_issue', { issue_id: '01936f4e-8a4c-7b1a-9f3e-5a2b1c0d9e8f' }, 'not_found'],
        ['get_issue', { issue_id: 'not-a-uuid' }, 'invalid_uuid', 'issue_id'],
        ['get_session', { session_id: 'xyz' }, 'invalid_input', 'session_id'],
        ['get_trends', { days: 91 }, 'invalid_input', 'days'],
        ['get_trends', { days: 0 }, 'invalid_input', 'days'],
        ['get_trends', { days: 'seven' }, 'invalid_input', 'days'],
        ['list_issues', { status: 'sleeping' }, 'invalid_status', 'status'],
        ['get_page', {}, 'invalid_input', 'page'],
        ['get_scores', { colour: 'blue' }, 'invalid_input', 'colour'],
        ['query_raw', { table: 'secrets' }, 'invalid_input', 'table'],
        ['get_funnel', { steps: '/cart' }, 'invalid_input', 'steps'],
        ['get_funnel', { steps: ['/cart', ''] }, 'invalid_input', 'steps'],
        ['get_funnel', {}, 'invalid_input', 'steps'],
        ['get_funnel', { steps: '/a,/b', window_minutes: 0 }, 'invalid_input', 'window_minutes'],
        ['get_funnel', { funnel_id: 'nope' }, 'invalid_uuid', 'funnel_id'],
        ['get_funnel', { funnel_id: '01936f4e-8a4c-7b1a-9f3e-5a2b1c0d9e8f' }, 'not_found', undefined],
      ];
      for (const [tool, args, code, field] of cases) {
        const error = await callError(reader.client, tool, args);
        expect(error.code, `${tool} ${JSON.stringify(args)}`).toBe(code);
        if (field) expect(error.details?.field).toBe(field);
      }
    });

    it('names the closest known pages for a page it has no data for', async () => {
      const error = await callError(reader.client, 'get_page', { page: '/chekout' });
      expect(error.code).toBe('not_found');
      expect((error.details?.closest as string[])[0]).toBe('/checkout');
      expect(error.text).toContain('/checkout');
    });

    it('scopes every tool to the caller\'s org: another org\'s site is not found', async () => {
      expect((await callError(reader.client, 'get_scores', { site_id: other.site_id })).code).toBe('not_found');
      const orgLevel = await connect('http', base, await h.login(org.email, org.password));
      try {
        expect((await callError(orgLevel.client, 'get_scores', { site_id: other.site_id })).code).toBe('not_found');
        expect((await callError(orgLevel.client, 'get_scores')).code).toBe('missing_site_id');
        const { data } = await callOk(orgLevel.client, 'get_scores', { site_id: org.site_id });
        expect(data.site.site_id).toBe(org.site_id);
        // A user may write (owner): the write tools are listed.
        expect((await orgLevel.client.listTools()).tools.map((t) => t.name)).toEqual(expect.arrayContaining(WRITE_TOOLS));
      } finally {
        await orgLevel.close();
      }
      // The endpoint's default site: the tools use it when site_id is omitted.
      const token = await h.login(org.email, org.password);
      const withSite = await connect('http', base, token, org.site_id);
      try {
        expect((await callOk(withSite.client, 'get_scores')).data.site.site_id).toBe(org.site_id);
      } finally {
        await withSite.close();
      }
    });

    it('leads get_site_context and get_scores with the headline /query/scores gives, and says the same state', async () => {
      const scores = await routeData(h, org.keys.mcp, '/v1/query/scores');
      const context = await callOk(reader.client, 'get_site_context');
      expect(context.text.split('\n')[0].startsWith(`${context.data.state.split(':')[0]}: ${scores.headline}`)).toBe(true);
      expect(context.data.overall).toMatchObject({ duck_state: scores.duck_state, duck_reason: scores.duck_reason, headline: scores.headline });
      const got = await callOk(reader.client, 'get_scores');
      expect(got.text.split('\n')[0]).toBe(scores.headline);
      if (scores.headline.includes('alert')) expect(context.text).not.toMatch(/everything normal/);
    });

    it('flags and lists the alerts whose rule names the mcp channel', async () => {
      const { data } = await callOk(reader.client, 'get_site_context');
      const flagged = data.active_alerts.filter((a: { mcp_channel: boolean }) => a.mcp_channel).map((a: { id: string }) => a.id);
      expect(flagged).toContain(facts.mcpAlertId);
      const uris = (await reader.client.listResources()).resources.map((r) => r.uri);
      expect(uris).toContain(`mallard://alerts/${facts.mcpAlertId}`);
      const other = data.active_alerts.find((a: { mcp_channel: boolean }) => !a.mcp_channel);
      if (other) expect(uris).not.toContain(`mallard://alerts/${other.id}`);
    });

    it('serves the resources and their templates', async () => {
      const { resources } = await reader.client.listResources();
      const open = (await routeData(h, org.keys.mcp, '/v1/query/issues?status=open&limit=200')).issues;
      expect(resources.map((r) => r.uri)).toEqual(expect.arrayContaining(['mallard://context', 'mallard://signals', ...open.map((i: { id: string }) => `mallard://issues/${i.id}`)]));
      const { resourceTemplates } = await reader.client.listResourceTemplates();
      expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(['mallard://issues/{issue_id}', 'mallard://sessions/{session_id}', 'mallard://alerts/{alert_id}', 'mallard://funnels/{funnel_id}']);
      expect(resources.find((r) => r.uri === `mallard://funnels/${facts.funnelId}`)).toMatchObject({ title: 'Funnel: Checkout', description: 'Saved funnel: /cart -> /checkout -> checkout_completed within 45 min' });

      const read = async (uri: string) => JSON.parse(((await reader.client.readResource({ uri })).contents[0] as { text: string }).text);
      expect(await read('mallard://context')).toEqual(await routeData(h, org.keys.mcp, '/v1/query/mcp/context'));
      expect(await read(`mallard://issues/${facts.issueId}`)).toEqual(await routeData(h, org.keys.mcp, `/v1/query/issues/${facts.issueId}`));
      expect(await read(`mallard://sessions/${facts.sessionId}`)).toEqual(await routeData(h, org.keys.mcp, `/v1/query/session?session_id=${facts.sessionId}`));
      expect(await read(`mallard://alerts/${facts.alertId}`)).toEqual(await routeData(h, org.keys.mcp, `/v1/query/alerts/${facts.alertId}`));
      const funnel = await read(`mallard://funnels/${facts.funnelId}`);
      expect(funnel).toEqual({ funnel: expect.objectContaining({ id: facts.funnelId, name: 'Checkout' }), ...await routeData(h, org.keys.mcp, '/v1/query/funnel?steps=/cart,/checkout,checkout_completed&window_minutes=45') });
      const signals = await read('mallard://signals');
      expect(signals.signals.find((s: { type: string }) => s.type === 'rage_click')).toEqual({
        type: 'rage_click', tier: 1, default_weight: 25, weight: 25, custom: false, journey_edge: true, heatmap: true,
      });
      await expect(reader.client.readResource({ uri: 'mallard://issues/01936f4e-8a4c-7b1a-9f3e-5a2b1c0d9e8f' })).rejects.toThrow(/not_found/);
      await expect(reader.client.readResource({ uri: 'mallard://nothing' })).rejects.toThrow(/not_found/);
    });

    it('completes ids and pages from the site\'s own data', async () => {
      const complete = async (ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string }, name: string, value: string) =>
        (await reader.client.complete({ ref, argument: { name, value } })).completion.values;
      expect(await complete({ type: 'ref/prompt', name: 'diagnose_page' }, 'page_path', '/chec')).toEqual(expect.arrayContaining(['/checkout', '/checkout/complete']));
      expect(await complete({ type: 'ref/prompt', name: 'investigate_session' }, 'session_id', facts.sessionId.slice(0, 6))).toContain(facts.sessionId);
      expect(await complete({ type: 'ref/resource', uri: 'mallard://issues/{issue_id}' }, 'issue_id', facts.issueId.slice(0, 8))).toContain(facts.issueId);
      expect(await complete({ type: 'ref/resource', uri: 'mallard://alerts/{alert_id}' }, 'alert_id', '')).toContain(facts.alertId);
      expect(await complete({ type: 'ref/prompt', name: 'post_deploy_check' }, 'deploy_id', facts.deployId.slice(0, 8))).toContain(facts.deployId);
    });

    it('prompts embed the site\'s real pages, issues and scores', async () => {
      const text = async (name: string, args: Record<string, string> = {}) => {
        const result = await reader.client.getPrompt({ name, arguments: args });
        expect(result.messages).toHaveLength(1);
        expect(result.messages[0]).toMatchObject({ role: 'user', content: { type: 'text' } });
        return (result.messages[0].content as { text: string }).text;
      };
      const scores = await routeData(h, org.keys.mcp, '/v1/query/scores');
      const worst = scores.site.pages[0];
      const fixes = (await routeData(h, org.keys.mcp, '/v1/query/recommendations')).recommendations;

      const triage = await text('triage_open_issues');
      for (const fix of fixes) expect(triage).toContain(`${fix.title}`);
      expect(triage).toContain(fixes[0].issue_id);
      expect(triage).toContain('cannot change issues');

      const diagnosis = await text('diagnose_page', { page_path: worst.page });
      expect(diagnosis).toContain(`${worst.page}: score ${worst.score}`);
      expect(diagnosis).toMatch(/points: /);

      const session = await routeData(h, org.keys.mcp, `/v1/query/session?session_id=${facts.sessionId}`);
      const investigation = await text('investigate_session', { session_id: facts.sessionId });
      expect(investigation).toContain(session.narrative);
      expect(investigation).toContain(session.session.pages.join(' -> '));

      const weekly = await text('weekly_summary');
      expect(weekly).toContain(`Overall score now ${scores.site.overall_score}`);
      expect(weekly).toContain(`${worst.page} ${worst.score}`);
      expect(weekly).toContain('under 300 words');

      await expect(reader.client.getPrompt({ name: 'diagnose_page', arguments: { page_path: '/chekout' } })).rejects.toThrow(/closest known pages are \/checkout/);
      await expect(reader.client.getPrompt({ name: 'investigate_session', arguments: {} })).rejects.toThrow(/session_id is required/);
    });
  });
});
