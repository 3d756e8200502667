// What `mallard serve` (npm start) prints on a first start with the demo, as a newcomer sees it
// in a terminal (a pseudo-terminal from util-linux `script`) and as a container's log collects
// it (a pipe). Terminal: readable lines, no JSON, "listening" once, the credentials banner last.
// Pipe: JSON lines, "listening" once. Each start is stopped once its banner is out (Ctrl-C on
// the terminal, SIGTERM on the pipe), so whatever the start printed late shows up between the
// banner and the shutdown line.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// The demo's first start simulates two weeks of traffic: about 25 s on a quiet two-core
// machine, two minutes beside the rest of the suite.
const TIMEOUT_MS = 360_000;
const BIN = resolve(import.meta.dirname, '../bin/mallard.js');
const SECRET = 'start-output-secret-start-output-0123456789';
const BANNER_END = /Saved to \.\/data\/demo-credentials\.json[^\n]*\n/;
const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;

// Cursor movement and colour from the progress bars and the coloured levels.
const stripAnsi = (text: string) => text.replace(/\x1b\[[0-9;?]*[A-Za-z]|\x1b[78]/g, '');

/**
 * Starts `mallard serve` with the demo in a fresh directory (SQLite under ./data), waits for
 * the banner, stops it as a user would and returns everything it printed, line endings as "\n".
 */
async function firstStart(terminal: boolean): Promise<string> {
  const cwd = mkdtempSync(join(tmpdir(), 'mallard-start-'));
  const env = {
    PATH: process.env.PATH, HOME: process.env.HOME, TERM: 'xterm-256color',
    MALLARD_SECRET: SECRET, MALLARD_DEMO: '1', PORT: '0', HOST: '127.0.0.1',
    DATABASE_URL: `sqlite:${join(cwd, 'data', 'mallard.db')}`,
  };
  const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} serve`;
  // `script -qfec CMD /dev/null`: CMD on a pseudo-terminal, its output on script's stdout.
  const child = terminal
    ? spawn('script', ['-qfec', command, '/dev/null'], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] })
    : spawn(process.execPath, [BIN, 'serve'], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  try {
    await new Promise<void>((ready, fail) => {
      const read = (chunk: Buffer) => {
        output += chunk.toString('utf8').replace(/\r\n/g, '\n');
        if (BANNER_END.test(output)) ready();
      };
      child.stdout!.on('data', read);
      child.stderr!.on('data', read);
      child.once('exit', (code) => fail(new Error(`serve exited with ${code} before its banner:\n${output}`)));
    });
    // Ctrl-C on the terminal reaches the server as SIGINT, as it does for a user.
    if (terminal) child.stdin!.write('\x03'); else child.kill('SIGTERM');
    await exited;
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  return output;
}

describe('the first start\'s output', { timeout: TIMEOUT_MS }, () => {
  // Skipped (and named so) where util-linux `script` is missing, except under CI.
  it.runIf(hasScript || process.env.CI)('in a terminal (util-linux script): readable lines, no JSON, listening once, the banner last', async () => {
    const output = stripAnsi(await firstStart(true));
    const lines = output.split('\n').map((line) => line.trim()).filter(Boolean);
    expect(lines.filter((line) => line.startsWith('{')), output).toEqual([]);
    expect(output.match(/listening/gi), output).toHaveLength(1);
    expect(output).toMatch(/^\d\d:\d\d:\d\d INFO {2}Mallard listening on http:\/\/127\.0\.0\.1:\d+$/m);
    // The banner, whole, after the listening line; after it only the shutdown.
    const listening = output.indexOf('Mallard listening on');
    const banner = output.indexOf('Mallard is running at');
    expect(banner, output).toBeGreaterThan(listening);
    expect(output.slice(banner)).toContain('Demo login       demo@mallard.example / duck-');
    // The terminal echoes the Ctrl-C as "^C".
    const afterBanner = output.slice(output.search(BANNER_END)).replace(BANNER_END, '').replace('^C', '');
    expect(afterBanner.split('\n').map((line) => line.trim()).filter(Boolean), output)
      .toEqual([expect.stringMatching(/^\d\d:\d\d:\d\d INFO {2}SIGINT received, shutting down$/)]);
  });

  it('through a pipe: JSON log lines, listening once, the banner as text', async () => {
    const output = await firstStart(false);
    const lines = output.split('\n').filter((line) => line.trim());
    const json = lines.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { level: number; msg: string });
    expect(json.map((entry) => entry.msg)).toEqual([expect.stringMatching(/^Mallard listening on http:\/\/127\.0\.0\.1:\d+$/), 'SIGTERM received, shutting down']);
    expect(json.every((entry) => entry.level === 30)).toBe(true);
    expect(output.match(/listening/gi), output).toHaveLength(1);
    // Besides the JSON lines, only the demo's own words: its "simulating" line and the banner.
    const text = lines.filter((line) => !line.startsWith('{'));
    expect(text[0]).toMatch(/^Demo: simulating 14 days of traffic/);
    expect(text[1]).toMatch(/^Mallard is running at http:\/\/127\.0\.0\.1:\d+ with a demo site/);
    expect(text[text.length - 1]).toMatch(/^ {2}Saved to \.\/data\/demo-credentials\.json/);
  });
});
