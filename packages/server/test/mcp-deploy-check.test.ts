// check_deploy and the post_deploy_check prompt on traffic made for them, on both dialects:
// a deploy after which one page rose 15 points fails; one that changed nothing passes.
//
// Each interval has 10 visitors per page (one interval is the scoring window), and visitor 0
// makes every signal (1 frustrated user: multiplier 1). Before deploy 1: /a has 2 rage clicks
// (2 x 25 / 10 = 5.0), /b 1 dead click (12 / 10 = 1.2). After it: /a has 8 rage clicks
// (8 x 25 / 10 = 20.0), /b the same 1.2: /a rose 15.0, FAIL. Deploy 2 follows with the same
// traffic after it as before it: nothing rose, PASS. Rage clicks hit another button each
// interval, so no issue (3 fires from 2 sessions on one element) forms to blur the verdict.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { eachDialect, useHarness } from './helpers/harness.ts';
import { api, cycle, ingest, intervalTraffic, INTERVAL, MIN } from './helpers/alert-traffic.ts';
import { callOk, connect, listen, type Connected } from './helpers/mcp-kit.ts';

const C1 = Date.UTC(2026, 10, 1, 10, 0);
const C2 = C1 + INTERVAL;
const C3 = C2 + INTERVAL;

const traffic = (from: number, rageClicks: number, button: string) => intervalTraffic(from, [
  { page: '/a', signals: [{ type: 'rage_click', element: button, count: rageClicks }] },
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
    h.clock.set(C1 - INTERVAL);
    await ingest(h, org.keys.secret, traffic(C1 - INTERVAL, 2, 'button.one'));
    await cycle(h, org.site_id, C1);

    h.clock.set(C1 + 2 * MIN);
    failing = (await a.call('POST', '/v1/manage/deploys', { version: 'v1', deployed_at: new Date(C1 + MIN).toISOString() })).body.data.id;
    await ingest(h, org.keys.secret, traffic(C1 + MIN, 8, 'button.two'));
    await cycle(h, org.site_id, C2);

    h.clock.set(C2 + 2 * MIN);
    passing = (await a.call('POST', '/v1/manage/deploys', { version: 'v2', deployed_at: new Date(C2 + MIN).toISOString() })).body.data.id;
    await ingest(h, org.keys.secret, traffic(C2 + MIN, 8, 'button.three'));
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
      { page: '/a', before: 5, after: 20, delta: 15, verdict: 'FAIL', reason: '/a: 5 -> 20 (+15); rose 15 points or more' },
      { page: '/b', before: 1.2, after: 1.2, delta: 0, verdict: 'PASS', reason: '/b: 1.2 -> 1.2 (0); within 5 points' },
    ]);
    expect(data.reasons).toEqual(['/a: 5 -> 20 (+15); rose 15 points or more']);
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
    expect(withWrites).toContain('- /a: 5 -> 20 (+15) FAIL');
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
