// The five product questions of issue 30, asked as an assistant asks them: a scripted session on
// the demo's data (its seed, 14 days x 250 sessions, its deploys and funnel) through the SDK's
// own client, over Streamable HTTP and over stdio (`mallard mcp` spawned against the server
// listening on 127.0.0.1), on both databases. Each answer must carry the facts the next step
// needs (the ids for the next call, the page, the score with its window, the reasons, the
// verdict, the narrative, the echoed note) in its text AND in its structured content, since
// clients pass one or the other to the model. The SDK's client checks every structured answer
// against the tool's listed output schema on the way.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_DAYS, DEMO_FUNNELS, DEMO_SESSIONS_PER_DAY } from '../src/demo/first-run.ts';
import { generatePlan } from '../src/simulate/generate.ts';
import { seedStore } from '../src/simulate/run.ts';
import { createHarness, eachDialect, T0, testConfig, type Harness } from './helpers/harness.ts';
import { callOk, connect, listen, routeData, type Connected, type TransportName } from './helpers/mcp-kit.ts';

/** The fact is in the text the model may be given instead of the structured content. */
function inText(text: string, ...facts: (string | number)[]) {
  for (const fact of facts) expect(text, `the text should say ${fact}`).toContain(String(fact));
}

eachDialect('Five product questions asked by an assistant on the demo', (dialect) => {
  let h: Harness;
  let base: string;
  let key: string;

  beforeAll(async () => {
    h = await createHarness(dialect.name, { raisedLimits: true });
    const org = await h.org('Demo');
    const plan = generatePlan({ days: DEMO_DAYS, sessionsPerDay: DEMO_SESSIONS_PER_DAY, seed: 'mallard-demo', end: T0 });
    await seedStore({ store: h.store, config: testConfig(), siteId: org.site_id, secretKey: org.keys.secret, plan, deliver: false, funnels: DEMO_FUNNELS });
    // The bootstrap secret key: the site's own, may write (manage:write), as a key pasted into an assistant's config.
    key = org.keys.secret;
    base = await listen(h);
  }, 600_000);
  afterAll(async () => h?.close());

  for (const transport of ['http', 'stdio'] as TransportName[]) {
    describe(`over ${transport}`, () => {
      let assistant: Connected;
      /** Carried from one question to the next, as the assistant would. */
      let topIssue: { issue_id: string; title: string };

      beforeAll(async () => {
        assistant = await connect(transport, base, key);
      }, 60_000);
      afterAll(async () => {
        // stdout carried only JSON-RPC (stdio): nothing else showed up as a transport error.
        expect(assistant?.protocolErrors ?? []).toEqual([]);
        await assistant?.close();
      });

      it('"Which page is the most confusing, and why?": the worst page with its score and window, then its reasons', async () => {
        const scores = await callOk(assistant.client, 'get_scores');
        const site = scores.data.site as { window_from: string; window_to: string; pages: { page: string; score: number; dominant_signal: string | null }[] };
        const worst = site.pages[0];
        expect(worst.score).toBe(Math.max(...site.pages.map((p) => p.score)));
        expect(site.window_from).toBeTruthy();
        inText(scores.text, `${worst.page}: ${worst.score}`, `${site.window_from} to ${site.window_to}`);

        // The page, passed on as the next call's argument: why it confuses.
        const page = await callOk(assistant.client, 'get_page', { page: worst.page });
        const score = page.data.score as { score: number; duck_state: string; dominant_signal: string; window_start: string; window_end: string };
        const elements = page.data.elements as { element_selector: string; signal_count: number; dominant_signal: string }[];
        expect(page.data.page).toBe(worst.page);
        expect(score.score).toBe(worst.score);
        expect(score.dominant_signal).toBeTruthy();
        expect(elements.length).toBeGreaterThan(0);
        inText(page.text, `${worst.page}: score ${score.score} (${score.duck_state})`, `mostly ${score.dominant_signal}`, `${score.window_start} to ${score.window_end}`);
        // The reasons: the elements users struggled with, by selector and count.
        inText(page.text, `${elements[0].element_selector}`, `${elements[0].signal_count} signals`);
      }, 60_000);

      it('"Did the last deploy make anything worse?": the verdict on the latest production deploy, with its reasons', async () => {
        const latest = (await routeData(h, key, '/v1/query/deploys?limit=1&environment=production')).deploys[0] as { id: string; version: string };
        const check = await callOk(assistant.client, 'check_deploy');
        const deploy = check.data.deploy as { id: string; version: string; environment: string };
        const reasons = check.data.reasons as string[];
        expect(deploy).toMatchObject({ id: latest.id, version: latest.version, environment: 'production' });
        // The demo's last deploy ("Cart and search redesign") made things worse.
        expect(['WARN', 'FAIL']).toContain(check.data.verdict);
        expect(reasons.length).toBeGreaterThan(0);
        inText(check.text, `${check.data.verdict}: deploy ${deploy.version} (production`, deploy.id, ...reasons.slice(0, 15));
        // Each worse page named with its rise, in both.
        const pages = check.data.pages as { page: string; delta: number; verdict: string }[];
        const worse = pages.filter((p) => p.verdict !== 'PASS');
        for (const p of worse.slice(0, 3)) inText(check.text, p.page);
      }, 60_000);

      it('"What should we fix first this week?": the top issue by priority with its reason, a fix and its id', async () => {
        const answer = await callOk(assistant.client, 'get_recommendations');
        const top = (answer.data.recommendations as { issue_id: string; title: string; priority: number; priority_reason: string; recommendation: string }[])[0];
        expect(top.priority).toBeGreaterThan(0);
        expect(top.priority_reason).toMatch(/7 days|users/);
        inText(answer.text, `Priority ${top.priority} of 100 (${top.priority_reason}): ${top.title}`, top.recommendation, top.issue_id);
        // The same order as the one-call context: the first issue needing attention is the same one.
        const context = await callOk(assistant.client, 'get_site_context');
        expect((context.data.open_issues as { id: string }[])[0].id).toBe(top.issue_id);
        inText(context.text, `id ${top.issue_id}`);
        topIssue = top;
      }, 60_000);

      it('"Show me a struggling checkout session in words": the session with the most friction on checkout, then its narrative', async () => {
        const found = await callOk(assistant.client, 'find_sessions', { page: '/checkout*' });
        const sessions = found.data.sessions as { session_id: string; friction_weight: number; pages: string[]; summary: string }[];
        expect(sessions.length).toBeGreaterThan(0);
        const worst = sessions[0];
        expect(worst.friction_weight).toBe(Math.max(...sessions.map((s) => s.friction_weight)));
        expect(worst.pages.some((p) => p.startsWith('/checkout'))).toBe(true);
        inText(found.text, worst.session_id, `friction ${worst.friction_weight}`, worst.summary, `${found.data.window_from} to ${found.data.window_to}`);

        // The id, passed on: the session told in words.
        const session = await callOk(assistant.client, 'get_session', { session_id: worst.session_id });
        const narrative = session.data.narrative as string;
        expect((session.data.session as { session_id: string }).session_id).toBe(worst.session_id);
        expect(narrative).toMatch(/\/checkout/);
        inText(session.text, `Session ${worst.session_id}`, narrative);
      }, 60_000);

      it('"Acknowledge the top issue with a note": triaged, the note echoed, and the note on the issue', async () => {
        const note = `Seen by the assistant over ${transport}: the team is on it`;
        const updated = await callOk(assistant.client, 'update_issue', { issue_id: topIssue.issue_id, status: 'triaged', note });
        expect(updated.data).toMatchObject({ id: topIssue.issue_id, status: 'triaged', written: { status: 'triaged', note, note_repeated: false } });
        inText(updated.text, 'status triaged', `note "${note}"`, `id ${topIssue.issue_id}`, topIssue.title);

        const issue = await callOk(assistant.client, 'get_issue', { issue_id: topIssue.issue_id });
        expect(issue.data.status).toBe('triaged');
        expect(JSON.stringify(issue.data.activity)).toContain(note);
      }, 60_000);
    });
  }
});
