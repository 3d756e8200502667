// The labelled corpus, driven in Debian's Chromium through real input (never a downloaded
// browser; playwright-core only drives it). One browser, a fresh context (a new visitor) per
// session, a few sessions at a time; the back-forward cache stays on, as in a user's Chrome.
// What the SDK detected is read where its transport delivers it (the stand-in server's
// /v1/ingest), never from detector internals. Prints precision and recall per detector and
// fails when a benign session produced a signal or a planted one was missed.
// Without /usr/bin/chromium it skips with a visible line, except under CI=true.
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { buildScriptTag } from '../../build.mjs';
import { startCorpusServer, type CorpusServer } from './server.ts';
import { SESSIONS, type Session } from './sessions.ts';
import { formatTable, mismatches, scoreTable, type Outcome } from './score.ts';
import { pause, User } from './user.ts';

const CHROMIUM = '/usr/bin/chromium';
const IN_CI = process.env.CI === 'true' || process.env.CI === '1';
const chromiumAvailable = existsSync(CHROMIUM);
if (!chromiumAvailable) {
  const line = `Chromium is not installed at ${CHROMIUM}`;
  if (IN_CI) throw new Error(`CI=true and ${line}: failing instead of skipping`);
  console.warn(`SKIPPING the SDK corpus: ${line}`);
}

/** Sessions run side by side: most of a session is waiting (for a wait, a window, a load). */
const CONCURRENCY = Number(process.env.CORPUS_CONCURRENCY) || 6;
/** CORPUS_ONLY=<regular expression>: only the sessions whose group or name matches (while working on one). */
const ONLY = process.env.CORPUS_ONLY ? new RegExp(process.env.CORPUS_ONLY) : null;
/** After the last action: long enough for every detector's wait (dead_end_submit's 3 s). */
const SETTLE_MS = 3600;
const SESSION_TIMEOUT_MS = 120_000;

describe.skipIf(!chromiumAvailable)('the labelled corpus in Chromium', () => {
  let server: CorpusServer;
  let browser: Browser;

  beforeAll(async () => {
    server = await startCorpusServer(await buildScriptTag());
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
      // Playwright turns the back-forward cache off; users' browsers have it on.
      ignoreDefaultArgs: ['--disable-back-forward-cache'],
    });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  async function play(session: Session, index: number): Promise<Outcome & { problems: string[] }> {
    const key = `svc_pub_corpus_${index}`;
    server.configs.set(key, session.config ?? {});
    const context = await browser.newContext({ viewport: { width: 1280, height: 720 }, acceptDownloads: true });
    await context.addCookies([{ name: 'corpus', value: key, url: server.base }]);
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    const user = new User(page, server.base);
    const problems: string[] = [];
    try {
      await Promise.race([
        session.run(user),
        pause(SESSION_TIMEOUT_MS).then(() => { throw new Error('timed out'); }),
      ]);
      await pause(SETTLE_MS);
      await page.evaluate(() => (window as unknown as { Mallard?: { flush(): Promise<void> } }).Mallard?.flush());
      await pause(100);
    } catch (err) {
      problems.push(`session failed: ${(err as Error).message.split('\n')[0]}`);
    }
    // Read before the tab closes: the session ends with the user still on the page.
    const received = [...server.signals(key)];
    await context.close();
    const got: Record<string, number> = {};
    for (const s of received) got[s.type] = (got[s.type] ?? 0) + 1;
    for (const want of session.match ?? []) {
      if (!received.some((s) => Object.entries(want).every(([k, v]) => s[k as keyof typeof s] === v))) {
        problems.push(`no signal like ${JSON.stringify(want)} in ${JSON.stringify(received)}`);
      }
    }
    return { session, got, problems };
  }

  it('detects every planted signal and nothing in the benign sessions', async () => {
    const started = Date.now();
    // Long sessions first, so they wait while the others run.
    const queue = SESSIONS.map((session, index) => ({ session, index }))
      .filter(({ session }) => !ONLY || ONLY.test(`${session.group}: ${session.name}`))
      .sort((a, b) => Number(!!b.session.long) - Number(!!a.session.long));
    const outcomes: (Outcome & { problems: string[] })[] = [];
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      for (let next = queue.shift(); next; next = queue.shift()) outcomes.push(await play(next.session, next.index));
    }));

    const rows = scoreTable(outcomes);
    const failures = outcomes.map((o) => ({ name: `${o.session.group}: ${o.session.name}`, problems: mismatches(o, o.problems) })).filter((f) => f.problems.length);
    console.log([
      `SDK corpus: ${outcomes.length} sessions in Chromium (${browser.version()}), ${Math.round((Date.now() - started) / 1000)} s`,
      formatTable(rows),
      ...failures.map((f) => `FAILED ${f.name}: ${f.problems.join('; ')}`),
    ].join('\n'));

    expect(failures).toEqual([]);
    for (const row of ONLY ? [] : rows) {
      expect([row.detector, row.precision, row.recall]).toEqual([row.detector, 1, 1]);
      expect(row.sessions, `${row.detector}: at least three sessions`).toBeGreaterThanOrEqual(3);
    }
  });
});
