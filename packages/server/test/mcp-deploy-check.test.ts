// check_deploy and the post_deploy_check prompt on traffic made for them, on both dialects:
// a deploy after which one page rose exactly 15 points (the FAIL threshold, `>=`) fails; one
// that changed nothing passes.
//
// Each interval has 14 visitors on /a and 10 on /b (10 or more keeps the scoring window to one
// interval), and visitor 0 makes every signal of its page: 1 of 14 affected on /a (7.1 %: 100 <
// 140, multiplier 1.0), 1 of 10 on /b (10 %: 100 >= 100, multiplier 1.5). Scores are
// 100 x (1 - e^(-raw / 10)), one decimal (DOMAIN.md 3).
// Before deploy 1: /a has 1 dead click: 12 / 14 = 0.8571 -> 100 x (1 - e^-0.08571) = 8.214 -> 8.2;
// /b 1 dead click: 12 / 10 x 1.5 = 1.8 -> 100 x (1 - e^-0.18) = 16.473 -> 16.5.
// After it, /a's visitor 0 also rage-clicks once: (12 + 25) / 14 = 2.6429 -> 100 x (1 - e^-0.26429)
// = 23.225 -> 23.2; /b the same 16.5: /a rose 23.2 - 8.2 = 15.0, FAIL. Deploy 2 follows with the
// same traffic after it as before it: nothing rose, PASS. Deploy 1's after-window at C3 holds both
// post-deploy intervals, in the same proportions: /a 2 x 37 / 28 = 2.6429 (2 of 28 affected, x1.0),
// 23.2 again; /b 24 / 20 x 1.5 = 1.8 (2 of 20, 10 %), 16.5 again. Signals on /a hit another element
// each interval, so no issue (3 fires from 2 sessions on one element) forms there to blur the verdict.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { eachDialect, useHarness } from './helpers/harness.ts';
import { api, cycle, ingest, intervalTraffic, INTERVAL, MIN } from './helpers/alert-traffic.ts';
import { callOk, connect, listen, type Connected } from './helpers/mcp-kit.ts';

const C1 = Date.UTC(2026, 10, 1, 10, 0);
const C2 = C1 + INTERVAL;
const C3 = C2 + INTERVAL;

const traffic = (from: number, rageClick: boolean, tag: string) => intervalTraffic(from, [
  {
    page: '/a', users: 14,
    signals: [{ type: 'dead_click', element: `a.${tag}` }, ...(rageClick ? [{ type: 'rage_click', element: `button.${tag}` }] : [])],
  },
  { page: '/b', signals: [{ type: 'dead_click', element: 'a.more' }] },
]);

eachDialect('check_deploy and post_deploy_check', (dialect) => {
  const h = useHarness(dialect.name, { raisedLimits: true });
  let reader: Connected;
  let writer: Connected;
  let failing: string;
  let passing: string;

  beforeAll(async () => {
    const org = await h.org('Deploys');
    const a = api(h, org.keys.secret);
    // At C1 the whole first interval is in the past (its 14th visitor, at C1 - 9 min 40 s, would be
    // more than the 5 minutes of tolerated clock skew ahead of a clock at C1 - 15 min).
    h.clock.set(C1);
    await ingest(h, org.keys.secret, traffic(C1 - INTERVAL, false, 'one'));
    await cycle(h, org.site_id, C1);

    h.clock.set(C1 + 2 * MIN);
    failing = (await a.call('POST', '/v1/manage/deploys', { version: 'v1', deployed_at: new Date(C1 + MIN).toISOString() })).body.data.id;
    await ingest(h, org.keys.secret, traffic(C1 + MIN, true, 'two'));
    await cycle(h, org.site_id, C2);

    h.clock.set(C2 + 2 * MIN);
    passing = (await a.call('POST', '/v1/manage/deploys', { version: 'v2', deployed_at: new Date(C2 + MIN).toISOString() })).body.data.id;
    await ingest(h, org.keys.secret, traffic(C2 + MIN, true, 'three'));
    await cycle(h, org.site_id, C3);
    h.clock.set(C3 + MIN);

    const base = await listen(h);
    reader = await connect('http', base, org.keys.mcp);
    writer = await connect('http', base, org.keys.secret);
  }, 60_000);

  afterAll(async () => {
    await reader?.close();
    await writer?.close();
  });

  it('check_deploy: the deploy that raised /a by 15 points fails, page by page', async () => {
    const { data, text } = await callOk(reader.client, 'check_deploy', { deploy_id: failing });
    expect(data.verdict).toBe('FAIL');
    expect(data.pages).toEqual([
      { page: '/a', before: 8.2, after: 23.2, delta: 15, verdict: 'FAIL', reason: '/a: 8.2 -> 23.2 (+15); rose 15 points or more' },
      { page: '/b', before: 16.5, after: 16.5, delta: 0, verdict: 'PASS', reason: '/b: 16.5 -> 16.5 (0); within 5 points' },
    ]);
    expect(data.reasons).toEqual(['/a: 8.2 -> 23.2 (+15); rose 15 points or more']);
    expect(data.new_critical_issues).toEqual([]);
    expect(text.split('\n')[0]).toMatch(/^FAIL: deploy v1 \(production/);
  });

  it('check_deploy: the latest deploy, which changed nothing, passes', async () => {
    const { data } = await callOk(reader.client, 'check_deploy');
    expect(data.deploy.id).toBe(passing);
    expect(data.verdict).toBe('PASS');
    expect(data.pages.map((p: { page: string; delta: number }) => [p.page, p.delta])).toEqual([['/a', 0], ['/b', 0]]);
    expect(data.reasons).toEqual(['no page rose 5 points or more (largest change: /a 0)']);
  });

  it('post_deploy_check embeds the FAIL, and asks for an annotation only when write tools are there', async () => {
    const prompt = async (who: Connected, args: Record<string, string>) => {
      const result = await who.client.getPrompt({ name: 'post_deploy_check', arguments: args });
      expect(result.messages).toHaveLength(1);
      expect(result.messages[0]).toMatchObject({ role: 'user', content: { type: 'text' } });
      return (result.messages[0].content as { text: string }).text;
    };
    const withWrites = await prompt(writer, { deploy_id: failing });
    expect(withWrites).toContain('Verdict: FAIL');
    expect(withWrites).toContain('- /a: 8.2 -> 23.2 (+15) FAIL');
    expect(withWrites).toContain('add_annotation');
    const readOnly = await prompt(reader, { deploy_id: failing });
    expect(readOnly).toContain('Verdict: FAIL');
    expect(readOnly).not.toContain('add_annotation');

    const latest = await prompt(reader, {});
    expect(latest).toContain('Post-deploy check of v2');
    expect(latest).toContain('Verdict: PASS');
    expect(latest).not.toContain('add_annotation');
  });
});
