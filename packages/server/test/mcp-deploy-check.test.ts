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
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { eachDialect, useHarness } from './helpers/harness.ts';
import { api, cycle, ingest, intervalTraffic, INTERVAL, MIN } from './helpers/alert-traffic.ts';
import { callError, callOk, connect, listen, type Connected } from './helpers/mcp-kit.ts';

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

// The environment argument and new high issues, on rows written straight to the store: a
// production deploy two hours ago, then a staging deploy an hour ago (the latest overall); a
// high and a medium issue first seen between them, and an older issue the production deploy
// verifies.
eachDialect('check_deploy by environment, new high issues, get_deploy\'s order', (dialect) => {
  const h = useHarness(dialect.name, { raisedLimits: true });
  let reader: Connected;
  let production: string;
  let staging: string;
  const ids = { high: randomUUID(), medium: randomUUID(), verified: randomUUID() };

  beforeAll(async () => {
    const org = await h.org('Environments');
    const now = h.clock.now();
    const deploy = async (version: string, environment: string, at: number) => {
      const id = randomUUID();
      await h.store.db.insertInto('deploys').values({
        id, site_id: org.site_id, version, environment, deployed_at: at, commit_sha: null, author: null, pr_number: null, provider: null, url: null,
        description: null, confusion_before: 10, confusion_after: null, delta: null, pages_before: '[]', pages_after: null, after_computed_at: null,
        created_at: at, score_scale: 'calibrated',
      }).execute();
      return id;
    };
    const issue = async (id: string, title: string, severity: string, firstSeen: number) => {
      await h.store.db.insertInto('ux_issues').values({
        id, site_id: org.site_id, fingerprint: randomUUID().replace(/-/g, ''), title, page: '/cart', element_selector: `button.${severity}`, element_label: null,
        type: 'rage_click', severity, severity_score: 50, severity_manual: null, status: 'open', assigned_to: null, signal_count: 3,
        session_count: 2, user_count: 2, first_seen_at: firstSeen, last_seen_at: firstSeen, resolved_at: null, ignored_at: null, status_changed_at: firstSeen,
        created_at: firstSeen, updated_at: firstSeen, ticket_provider: null, ticket_id: null, ticket_url: null,
      }).execute();
    };
    production = await deploy('v10', 'production', now - 120 * MIN);
    staging = await deploy('v11-rc', 'staging', now - 60 * MIN);
    await issue(ids.verified, 'Dead clicks on Old (a.old) on /cart', 'low', now - 30 * 24 * 60 * MIN);
    await issue(ids.medium, 'Rage clicks on Size (button.medium) on /cart', 'medium', now - 100 * MIN);
    await issue(ids.high, 'Rage clicks on Apply (button.high) on /cart', 'high', now - 90 * MIN);
    await h.store.db.insertInto('issue_verifications').values({
      id: randomUUID(), issue_id: ids.verified, deploy_id: production, deploy_version: 'v10', result: 'pending', before_count: 1, before_rate: 1, after_count: 0,
      after_rate: null, active_users_after: 0, started_at: now - 120 * MIN, decided_at: null, created_at: now - 120 * MIN,
    }).execute();
    reader = await connect('http', await listen(h), org.keys.mcp);
  }, 60_000);

  afterAll(async () => reader?.close());

  it('checks the latest production deploy by default, and warns on the high issue that appeared after it', async () => {
    const { data, text } = await callOk(reader.client, 'check_deploy');
    expect(data.deploy).toMatchObject({ id: production, environment: 'production' });
    expect(data.verdict).toBe('WARN');
    expect(data.reasons).toEqual(['new high issue on /cart since the deploy: Rage clicks on Apply (button.high) on /cart']);
    expect(data.new_high_issues.map((i: { id: string }) => i.id)).toEqual([ids.high]);
    expect(data.new_critical_issues).toEqual([]);
    expect(text.split('\n')[0]).toMatch(/^WARN: deploy v10 \(production/);
    expect(text).toContain('- new high issue on /cart since the deploy: Rage clicks on Apply (button.high) on /cart');
    expect(text).toContain(`[high] Rage clicks on Apply (button.high) on /cart on /cart (id ${ids.high} (http://127.0.0.1:8787/app/#/issues/${ids.high}))`);
    expect(data.new_high_issues[0].dashboard_url).toBe(`http://127.0.0.1:8787/app/#/issues/${ids.high}`);
  });

  it('checks another environment\'s latest deploy when asked, and says when it has none', async () => {
    const { data } = await callOk(reader.client, 'check_deploy', { environment: 'staging' });
    expect(data.deploy).toMatchObject({ id: staging, version: 'v11-rc', environment: 'staging' });
    expect(data.verdict).toBe('PENDING');
    // A deploy named by id is checked whatever the environment argument.
    expect((await callOk(reader.client, 'check_deploy', { deploy_id: staging })).data.deploy.id).toBe(staging);
    const none = await callError(reader.client, 'check_deploy', { environment: 'qa' });
    expect(none.code).toBe('not_found');
    expect(none.text).toContain('No qa deploy is recorded');
  });

  it('post_deploy_check checks the latest production deploy by default, embeds the new high issue, and takes environment', async () => {
    const prompt = async (args: Record<string, string>) => {
      const result = await reader.client.getPrompt({ name: 'post_deploy_check', arguments: args });
      return (result.messages[0].content as { text: string }).text;
    };
    const production = await prompt({});
    expect(production).toContain('Post-deploy check of v10 (production');
    expect(production).toContain('Verdict: WARN (WARN when a page rose 5 points or on a new high-severity issue, FAIL at 15 or on a new critical issue).');
    expect(production).toContain(`New high-severity issues:\n- Rage clicks on Apply (button.high) on /cart on /cart (id ${ids.high})`);
    const rc = await prompt({ environment: 'staging' });
    expect(rc).toContain('Post-deploy check of v11-rc (staging');
    expect(rc).toContain('Verdict: PENDING');
  });

  it('get_deploy lists the issues that appeared after the deploy first, most severe first, then those it verifies', async () => {
    const { data, text } = await callOk(reader.client, 'get_deploy', { deploy_id: production });
    expect(data.related_issues.map((i: { id: string; relation: string }) => [i.id, i.relation])).toEqual([
      [ids.high, 'appeared_after'], [ids.medium, 'appeared_after'], [ids.verified, 'verification'],
    ]);
    const rows = text.split('\n');
    expect(rows[1]).toBe('Related issues:');
    expect(rows[2]).toContain(`[high] Rage clicks on Apply (button.high) on /cart (appeared_after; id ${ids.high}`);
    // The per-page lists in one line, after the issues.
    const before = new Map<string, number>(data.pages_before.map((p: { page: string; score: number }) => [p.page, p.score]));
    const rises = (data.pages_after ?? []).map((p: { page: string; score: number }) => Math.round((p.score - (before.get(p.page) ?? 0)) * 10) / 10);
    expect(rows[rows.length - 1]).toMatch(data.pages_after === null
      ? new RegExp(`^${data.pages_before.length} pages? scored before the deploy; none after it yet \\(pending\\)\\.$`)
      : new RegExp(`^${data.pages_before.length} pages? scored before the deploy, ${data.pages_after.length} after; biggest rises: .* [+-]?${Math.max(...rises)}(,|\\.)`));
  });
});
