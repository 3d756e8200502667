// The token budgets of docs/mcp.md ("Token budgets"), measured in characters / 4 on the demo's
// simulated data (14 days x 250 sessions a day, the demo's seed and funnel): every tool's
// default answer, its text and its structured content each, under 4k tokens; the tool listing
// (write tools included, output schemas kept) under 6k tokens in all. The tools are listed by
// the server itself, so a new tool is measured without touching this file; a tool whose
// required argument this file cannot fill fails here until it is taught how.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { DEMO_DAYS, DEMO_FUNNELS, DEMO_SESSIONS_PER_DAY } from '../src/demo/first-run.ts';
import { generatePlan } from '../src/simulate/generate.ts';
import { seedStore } from '../src/simulate/run.ts';
import { createHarness, eachDialect, T0, testConfig, type Harness } from './helpers/harness.ts';
import { connect, listen, routeData, type Connected } from './helpers/mcp-kit.ts';

/** Tokens as docs/mcp.md counts them: characters / 4, rounded up. */
const tokens = (text: string) => Math.ceil(text.length / 4);
const ANSWER_BUDGET = 4000;
/** tools/list for the most privileged credential (an owner: every tool, site_id on each), output schemas kept. */
const LISTING_BUDGET = 6000;

eachDialect('MCP token budgets on the demo', (dialect) => {
  let h: Harness;
  let writer: Connected;
  let listed: Tool[];
  let orgListed: Tool[];
  const facts: Record<string, unknown> = {};

  beforeAll(async () => {
    h = await createHarness(dialect.name, { raisedLimits: true });
    const org = await h.org('Demo');
    const plan = generatePlan({ days: DEMO_DAYS, sessionsPerDay: DEMO_SESSIONS_PER_DAY, seed: 'mallard-demo', end: T0 });
    await seedStore({ store: h.store, config: testConfig(), siteId: org.site_id, secretKey: org.keys.secret, plan, deliver: false, funnels: DEMO_FUNNELS });
    const key = org.keys.secret;
    const scores = await routeData(h, key, '/v1/query/scores');
    const issues = (await routeData(h, key, '/v1/query/issues?limit=200')).issues as { id: string; page: string; element_selector: string }[];
    const issue = issues.find((i) => i.page === scores.site.pages[0].page && i.element_selector) ?? issues.find((i) => i.element_selector)!;
    const detail = await routeData(h, key, `/v1/query/issues/${issue.id}`);
    const alerts = (await routeData(h, key, '/v1/query/alerts')).alerts as { id: string }[];
    const deploys = (await routeData(h, key, '/v1/query/deploys')).deploys as { id: string }[];
    Object.assign(facts, {
      page: issue.page, a: scores.site.pages[0].page, b: scores.site.pages[1].page, selector: issue.element_selector,
      issue_id: issue.id, alert_id: alerts[0]?.id, deploy_id: deploys[0]?.id, session_id: detail.linked_sessions[0].session_id,
      table: 'events', steps: DEMO_FUNNELS[0].steps.join(','), key,
      // The write tools' required fields.
      message: 'Measured by the budget test', version: 'budget-1',
    });
    const base = await listen(h);
    writer = await connect('http', base, key);
    listed = (await writer.client.listTools()).tools;
    // The owner's token: org-level, may write; its listing keeps site_id on every site tool.
    const owner = await connect('http', base, org.jwt);
    orgListed = (await owner.client.listTools()).tools;
    await owner.close();
  }, 600_000);
  afterAll(async () => {
    await writer?.close();
    await h?.close();
  });

  it('lists every tool, write tools and output schemas included, within the listing budget, for a site-scoped and an org-level credential', () => {
    expect(listed.length).toBeGreaterThan(20);
    expect(orgListed.map((t) => t.name)).toEqual(listed.map((t) => t.name));
    for (const tools of [listed, orgListed]) {
      expect(tools.every((t) => t.outputSchema?.type === 'object')).toBe(true);
      const size = tokens(JSON.stringify({ tools }));
      expect(size, `tools/list is ${size} tokens`).toBeLessThan(LISTING_BUDGET);
    }
    // A site-scoped key reads only its own site: site_id is not listed for it.
    expect(listed.filter((t) => 'site_id' in (t.inputSchema.properties ?? {}))).toEqual([]);
    expect(orgListed.filter((t) => 'site_id' in (t.inputSchema.properties ?? {})).length).toBeGreaterThan(20);
    expect(tokens(JSON.stringify({ tools: listed }))).toBeLessThan(tokens(JSON.stringify({ tools: orgListed })));
  });

  it('answers every tool with its defaults in under 4k tokens, text and structured content each', async () => {
    const sizes: string[] = [];
    for (const tool of listed) {
      const args: Record<string, unknown> = {};
      for (const field of tool.inputSchema.required ?? []) {
        expect(facts[field], `${tool.name} requires ${field}: teach this test a value for it`).toBeDefined();
        args[field] = facts[field];
      }
      // Writes need one change to make: the smallest each takes.
      if (tool.name === 'update_issue') args.note = 'Measured by the budget test';
      if (tool.name === 'update_alert') args.status = 'acknowledged';
      let result = await writer.client.callTool({ name: tool.name, arguments: args }) as CallToolResult;
      // A tool that needs one of several arguments (get_funnel: steps or funnel_id) names the one it wants.
      const wanted = (result._meta?.['mallard/error'] as { details?: { field?: string } } | undefined)?.details?.field;
      if (result.isError && wanted !== undefined && facts[wanted] !== undefined && !(wanted in args)) {
        args[wanted] = facts[wanted];
        result = await writer.client.callTool({ name: tool.name, arguments: args }) as CallToolResult;
      }
      const text = (result.content[0] as { text: string }).text;
      expect(result.isError, `${tool.name}: ${text}`).toBeFalsy();
      const textTokens = tokens(text);
      const structuredTokens = tokens(JSON.stringify(result.structuredContent));
      sizes.push(`${tool.name}: text ${textTokens}, structured ${structuredTokens}`);
      expect(textTokens, `${tool.name}'s text`).toBeLessThan(ANSWER_BUDGET);
      expect(structuredTokens, `${tool.name}'s structured content`).toBeLessThan(ANSWER_BUDGET);
    }
    expect(sizes).toHaveLength(listed.length);
  }, 300_000);

  it('cuts long lists by default, says so in next, and answers in full with detail: "full"', async () => {
    const cut = await writer.client.callTool({ name: 'get_trends', arguments: {} }) as CallToolResult;
    const full = await writer.client.callTool({ name: 'get_trends', arguments: { detail: 'full' } }) as CallToolResult;
    const data = cut.structuredContent as { history: unknown[]; omitted: Record<string, number>; next: string };
    const all = (full.structuredContent as { history: Record<string, unknown>[] }).history;
    expect(all.length).toBeGreaterThan(24);
    expect(data.history).toHaveLength(24);
    // Page trends carry a breakdown per row, the site's do not: it is named only when something was dropped.
    const breakdowns = all.some((row) => 'breakdown' in row);
    expect(data.omitted).toEqual({ history: all.length, ...(breakdowns ? { 'history[].breakdown': 'left out' } : {}) });
    expect(data.next).toBe(`history: first 24 of ${all.length}${breakdowns ? '; history[].breakdown: left out' : ''}. Call get_trends with detail: "full" for everything.`);
    expect(data.history).toEqual(all.slice(0, 24).map(({ breakdown: _b, ...row }) => row));
    expect(full.structuredContent).not.toHaveProperty('next');
    // The text sums up the whole history, not only the rows sent.
    expect((cut.content[0] as { text: string }).text).toContain(`${all.length} cycles`);
  });

  it('pages list tools by a page size of their own and says where the next page starts', async () => {
    const first = (await writer.client.callTool({ name: 'list_issues', arguments: {} }) as CallToolResult).structuredContent as { issues: { id: string }[]; total: number; next: string };
    expect(first.issues).toHaveLength(10);
    expect(first.total).toBeGreaterThan(10);
    expect(first.next).toContain(`${first.total - 10} more after these 10: call list_issues with offset: 10.`);
    const second = (await writer.client.callTool({ name: 'list_issues', arguments: { offset: 10 } }) as CallToolResult).structuredContent as { issues: { id: string }[] };
    const route = await routeData(h, facts.key as string, '/v1/query/issues?limit=20');
    expect([...first.issues, ...second.issues].map((i) => i.id)).toEqual(route.issues.slice(0, first.issues.length + second.issues.length).map((i: { id: string }) => i.id));
    // A list without a total: a full page says more may follow.
    const recommendations = (await writer.client.callTool({ name: 'get_recommendations', arguments: {} }) as CallToolResult).structuredContent as { recommendations: unknown[]; next: string };
    expect(recommendations.recommendations).toHaveLength(10);
    expect(recommendations.next).toBe('these are the first 10; call get_recommendations with limit: 20 for more.');
    const more = (await writer.client.callTool({ name: 'get_recommendations', arguments: { limit: 20 } }) as CallToolResult).structuredContent as { recommendations: unknown[] };
    expect(more.recommendations.slice(0, 10)).toEqual(recommendations.recommendations);
  });

  it('refuses a detail that is neither summary nor full, naming both', async () => {
    const result = await writer.client.callTool({ name: 'get_page', arguments: { page: facts.page, detail: 'everything' } }) as CallToolResult;
    expect(result.isError).toBe(true);
    expect((result._meta?.['mallard/error'] as { code: string; details: Record<string, unknown> })).toMatchObject({ code: 'invalid_input', details: { field: 'detail', allowed: ['summary', 'full'] } });
  });
});
