// The pure parts of the MCP server: DOMAIN §9's post-deploy verdict, the closest known pages,
// the heatmap summary, and argument checking against the routes' own schemas.
import { describe, expect, it } from 'vitest';
import { deployVerdict, type PageSnapshot } from '../src/features/deploys/deploy-verdict.ts';
import { closestPages } from '../src/features/pages/known-pages.ts';
import { closestSelectors } from '../src/features/pages/known-elements.ts';
import { addLinks, linkText, withLinkFields } from '../src/mcp/dashboard-links.ts';
import { toolError } from '../src/mcp/tool-kit.ts';
import type { McpSession } from '../src/mcp/session.ts';
import { cellName, summarizePoints } from '../src/mcp/heatmap-summary.ts';
import { checkArguments, inputSchemaOf } from '../src/mcp/arguments.ts';
import { TrendsQuery } from '../src/features/scores/schemas.ts';
import { IssueParams, SiteQuery, UpdateIssueBody } from '../src/features/issues/schemas.ts';
import { AppError } from '../src/domain/errors.ts';

const critical = { title: 'Dead clicks on Pay (button.pay) on /checkout', page: '/checkout' };
const page = (p: string, score: number): PageSnapshot => ({ page: p, score });

describe('deployVerdict (DOMAIN §9)', () => {
  const cases: { name: string; before: PageSnapshot[]; after: PageSnapshot[] | null; critical?: boolean; verdict: string; pages?: [string, number, string][] }[] = [
    { name: 'no score after the deploy yet', before: [page('/a', 10)], after: null, verdict: 'PENDING' },
    { name: 'no score after it, but a new critical issue', before: [page('/a', 10)], after: null, critical: true, verdict: 'FAIL' },
    { name: 'nothing changed', before: [page('/a', 10)], after: [page('/a', 10)], verdict: 'PASS', pages: [['/a', 0, 'PASS']] },
    { name: 'a page got better', before: [page('/a', 30)], after: [page('/a', 12.5)], verdict: 'PASS', pages: [['/a', -17.5, 'PASS']] },
    { name: 'a rise just under 5', before: [page('/a', 10)], after: [page('/a', 14.9)], verdict: 'PASS', pages: [['/a', 4.9, 'PASS']] },
    { name: 'a rise of exactly 5', before: [page('/a', 10)], after: [page('/a', 15)], verdict: 'WARN', pages: [['/a', 5, 'WARN']] },
    { name: 'a rise just under 15', before: [page('/a', 10)], after: [page('/a', 24.9)], verdict: 'WARN', pages: [['/a', 14.9, 'WARN']] },
    { name: 'a rise of 15 (floating point: 20.1 - 5.1)', before: [page('/a', 5.1)], after: [page('/a', 20.1)], verdict: 'FAIL', pages: [['/a', 15, 'FAIL']] },
    { name: 'one failing page among calm ones', before: [page('/a', 1), page('/b', 2)], after: [page('/a', 1), page('/b', 40)], verdict: 'FAIL', pages: [['/b', 38, 'FAIL'], ['/a', 0, 'PASS']] },
    { name: 'a page not scored before counts from 0', before: [page('/a', 1)], after: [page('/a', 1), page('/new', 16)], verdict: 'FAIL', pages: [['/new', 16, 'FAIL'], ['/a', 0, 'PASS']] },
    { name: 'calm pages but a new critical issue', before: [page('/a', 10)], after: [page('/a', 11)], critical: true, verdict: 'FAIL', pages: [['/a', 1, 'PASS']] },
    { name: 'a page before but no visitors after', before: [page('/a', 10), page('/gone', 50)], after: [page('/a', 10)], verdict: 'PASS', pages: [['/a', 0, 'PASS']] },
  ];
  for (const c of cases) {
    it(`${c.name}: ${c.verdict}`, () => {
      const result = deployVerdict(c.before, c.after, c.critical ? [critical] : []);
      expect(result.verdict).toBe(c.verdict);
      expect(result.reasons.length).toBeGreaterThan(0);
      if (c.pages) expect(result.pages.map((p) => [p.page, p.delta, p.verdict])).toEqual(c.pages);
    });
  }

  it('gives the reasons: failing pages first, then new critical issues, then warnings', () => {
    const result = deployVerdict([page('/a', 0), page('/b', 0)], [page('/a', 6), page('/b', 30), page('/c', 2)], [critical]);
    expect(result.reasons).toEqual([
      '/b: 0 -> 30 (+30); rose 15 points or more',
      `new critical issue on /checkout since the deploy: ${critical.title}`,
      '/a: 0 -> 6 (+6); rose 5 points or more',
    ]);
    expect(result.pages.find((p) => p.page === '/c')!.reason).toBe('/c: not scored before the deploy, now 2; within 5 points');
  });

  it('a new high issue warns: with pages calm, with no score yet, and after failing pages and warnings in the reasons', () => {
    const high = { title: 'Rage clicks on Apply (button.coupon) on /cart', page: '/cart' };
    const calm = deployVerdict([page('/a', 10)], [page('/a', 11)], [], [high]);
    expect(calm.verdict).toBe('WARN');
    expect(calm.reasons).toEqual([`new high issue on /cart since the deploy: ${high.title}`]);
    expect(deployVerdict([page('/a', 10)], null, [], [high])).toMatchObject({ verdict: 'WARN', reasons: [`new high issue on /cart since the deploy: ${high.title}`] });
    expect(deployVerdict([page('/a', 10)], null, [critical], [high]).verdict).toBe('FAIL');
    const both = deployVerdict([page('/a', 0), page('/b', 0)], [page('/a', 6), page('/b', 30)], [critical], [high]);
    expect(both.verdict).toBe('FAIL');
    expect(both.reasons).toEqual([
      '/b: 0 -> 30 (+30); rose 15 points or more',
      `new critical issue on /checkout since the deploy: ${critical.title}`,
      '/a: 0 -> 6 (+6); rose 5 points or more',
      `new high issue on /cart since the deploy: ${high.title}`,
    ]);
  });

  it('names the largest change when everything passes', () => {
    expect(deployVerdict([page('/a', 3), page('/b', 3)], [page('/a', 4.5), page('/b', 1)], []).reasons).toEqual(['no page rose 5 points or more (largest change: /a +1.5)']);
  });
});

describe('closestPages', () => {
  const pages = ['/', '/cart', '/checkout', '/checkout/complete', '/pricing', '/products'];
  it('ranks by edit distance, ties alphabetically, and keeps n', () => {
    expect(closestPages('/chekout', pages, 3)).toEqual(['/checkout', '/cart', '/']); // '/' and '/pricing' are both 7 edits away
    expect(closestPages('/Checkout/', pages, 1)).toEqual(['/checkout']);
    expect(closestPages('/product', pages, 2)).toEqual(['/products', '/pricing']);
    expect(closestPages('/x', [], 3)).toEqual([]);
  });
});

describe('closestSelectors', () => {
  const known = ['button.pay', 'button.pay-later', 'a.more', 'input#email', 'form#checkout button'];
  it('puts selectors sharing the start first, then the nearest by edit distance', () => {
    expect(closestSelectors('button.pa', known, 3)).toEqual(['button.pay', 'button.pay-later', 'a.more']);
    expect(closestSelectors('input#emial', known, 1)).toEqual(['input#email']);
    expect(closestSelectors('x', [], 3)).toEqual([]);
  });
});

describe('dashboard links', () => {
  const specs = [{ at: 'issues[]', kind: 'issue' as const }, { at: 'deploy', kind: 'deploy' as const }, { at: 'issues[].sessions[]', kind: 'session' as const, id: 'session_id' }];
  it('adds dashboard_url beside each id, and the link after the id in the text, once', () => {
    const data = { issues: [{ id: 'i1', sessions: [{ session_id: 's1' }] }, { id: 'i2', sessions: [] }], deploy: { id: 'd1' } };
    const links = addLinks(data, specs, 'https://m.example');
    expect(data).toEqual({
      issues: [
        { id: 'i1', dashboard_url: 'https://m.example/app/#/issues/i1', sessions: [{ session_id: 's1', dashboard_url: 'https://m.example/app/#/sessions/s1' }] },
        { id: 'i2', dashboard_url: 'https://m.example/app/#/issues/i2', sessions: [] },
      ],
      deploy: { id: 'd1', dashboard_url: 'https://m.example/app/#/deploys' },
    });
    expect(linkText('issue i1; deploy d1; i1 again', links)).toBe('issue i1 (https://m.example/app/#/issues/i1); deploy d1 (https://m.example/app/#/deploys); i1 again');
    // Deploys share one link: said once, after the first deploy named.
    const deploys = addLinks({ deploys: [{ id: 'd1' }, { id: 'd2' }] }, [{ at: 'deploys[]', kind: 'deploy' }], 'https://m.example');
    expect(linkText('d1 then d2', deploys)).toBe('d1 (https://m.example/app/#/deploys) then d2');
  });
  it('refuses a link path the output schema does not have', () => {
    const schema = { type: 'object', properties: { issues: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' } } } } } };
    expect(JSON.stringify(withLinkFields('t', structuredClone(schema), [specs[0]]))).toContain('dashboard_url');
    expect(() => withLinkFields('t', structuredClone(schema), [specs[1]])).toThrow(/no id at "deploy"/);
  });
});

describe('toolError', () => {
  const session = { ctx: { now: Date.UTC(2026, 10, 2, 11, 0, 45) }, publicUrl: 'https://m.example' } as unknown as McpSession;
  const meta = (r: ReturnType<typeof toolError>) => (r._meta as Record<string, Record<string, unknown>>)['mallard/error'];
  it('carries retry_after (seconds) beside the code for a refusal that passes with time, in the text once', () => {
    const budget = toolError(new AppError('rate_limited', 'Rate limit exceeded: 3 MCP calls a minute for this credential; retry after 15 seconds', { reset_at: '2026-11-02T11:01:00.000Z', retry_after: 15 }), session);
    expect(budget.isError).toBe(true);
    expect(meta(budget)).toMatchObject({ code: 'rate_limited', status: 429, retry_after: 15 });
    expect((budget.content[0] as { text: string }).text).toBe('rate_limited (429): Rate limit exceeded: 3 MCP calls a minute for this credential; retry after 15 seconds');
    // Only a reset time (the API's other limits): the seconds are worked out from the clock, and said.
    const other = toolError(new AppError('rate_limited', 'Too many failed authentication attempts', { reset_at: '2026-11-02T11:01:00.000Z' }), session);
    expect(meta(other).retry_after).toBe(15);
    expect((other.content[0] as { text: string }).text).toBe('rate_limited (429): Too many failed authentication attempts (retry_after 15 seconds)');
    expect(meta(toolError(new AppError('not_found', 'Issue not found'), session))).toEqual({ code: 'not_found', status: 404 });
  });
});

describe('summarizePoints', () => {
  it('names the grid cells', () => {
    expect(cellName(0, 0)).toBe('top left');
    expect(cellName(0.5, 0.5)).toBe('centre');
    expect(cellName(0.99, 1)).toBe('bottom right');
    expect(cellName(0.5, 0.1)).toBe('top centre');
  });

  it('counts points per signal and says where they cluster and what was hit', () => {
    const points = [
      ...Array.from({ length: 6 }, () => ({ x: 0.9, y: 0.1, signal: 'rage_click', el: 'button.pay' })),
      ...Array.from({ length: 3 }, () => ({ x: 0.5, y: 0.5, signal: 'dead_click', el: 'a.terms' })),
      { x: 0.1, y: 0.9, signal: 'disabled_element_attempt' },
    ];
    expect(summarizePoints(points, 'viewport')).toEqual([
      '10 points: rage_click 6, dead_click 3, disabled_element_attempt 1.',
      'Where they cluster in the viewport: top right 60%, centre 30%, bottom left 10% (centre of mass x 0.70, y 0.30; 0,0 is the top left).',
      'Elements clicked most: button.pay (6), a.terms (3).',
    ]);
    expect(summarizePoints([], 'element')).toEqual(['No friction points in the element for this window.']);
  });
});

describe('checkArguments', () => {
  const fails = (parts: Parameters<typeof checkArguments>[0], args: Record<string, unknown>) => {
    try {
      checkArguments(parts, args);
    } catch (error) {
      expect(error).toBeInstanceOf(AppError);
      const e = error as AppError;
      return { code: e.code, field: e.details?.field };
    }
    throw new Error('expected a failure');
  };
  const update = { params: IssueParams, query: SiteQuery, body: UpdateIssueBody };

  it('fills the route\'s defaults and keeps what was given', () => {
    expect(checkArguments({ query: TrendsQuery }, {})).toEqual({ days: 7 });
    expect(checkArguments({ query: TrendsQuery }, { page: '/a', days: 30 })).toEqual({ page: '/a', days: 30 });
  });

  it('answers as the route would: path ids first, then each part, unknown fields refused', () => {
    expect(fails(update, { issue_id: 'nope', status: 'bogus' })).toEqual({ code: 'invalid_uuid', field: 'issue_id' });
    expect(fails(update, { issue_id: '01936f4e-8a4c-7b1a-9f3e-5a2b1c0d9e8f' })).toEqual({ code: 'invalid_input', field: 'body' });
    expect(fails(update, { issue_id: '01936f4e-8a4c-7b1a-9f3e-5a2b1c0d9e8f', status: 'regressed' })).toEqual({ code: 'invalid_status', field: 'status' });
    expect(fails(update, { status: 'open' })).toEqual({ code: 'invalid_input', field: 'issue_id' });
    expect(fails({ query: TrendsQuery }, { days: 7.5 })).toEqual({ code: 'invalid_input', field: 'days' });
    expect(fails({ query: TrendsQuery }, { weeks: 2 })).toEqual({ code: 'invalid_input', field: 'weeks' });
  });

  it('lists one object schema made of every part', () => {
    const schema = inputSchemaOf(update);
    expect(Object.keys(schema.properties)).toEqual(['issue_id', 'site_id', 'status', 'note', 'assigned_to', 'severity']);
    expect(schema.required).toEqual(['issue_id']);
    expect(schema.additionalProperties).toBe(false);
    // A field with a default is not required of the caller: the check fills it in.
    expect(inputSchemaOf({ query: TrendsQuery }).required).toEqual([]);
  });
});
