// The log formats (logs/terminal-log.ts): which lines move to debug in which format, and how
// a terminal line reads.
import { describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { demoteChatter, formatLogLine, logFormatFor, type LogFormat } from '../src/logs/terminal-log.ts';
import { loggerOptions } from '../src/http/logging.ts';

/** A pino logger at `level` with the format's hook, and the JSON lines it writes. */
function capture(format: LogFormat, level: string) {
  const lines: string[] = [];
  const log = pino({ level, hooks: { logMethod: demoteChatter(format) } }, { write: (line: string) => { lines.push(line); } });
  const entries = () => lines.map((line) => JSON.parse(line) as { level: number; msg: string; reqId?: string });
  return { log, entries };
}

function chatter(log: pino.Logger) {
  log.info('Server listening at http://127.0.0.1:8787');
  log.info('Mallard listening on http://127.0.0.1:8787');
  const request = log.child({ reqId: 'r1' });
  request.info({ req: { method: 'GET', url: '/healthz' } }, 'incoming request');
  request.info({ res: { statusCode: 200 }, responseTime: 1.5 }, 'request completed');
  request.error({ err: new Error('boom') }, 'request failed');
}

describe('which lines the formats keep at info', () => {
  it('JSON: the request lines stay at info; only Fastify\'s listening line moves to debug', () => {
    const { log, entries } = capture('json', 'info');
    chatter(log);
    expect(entries().map((e) => [e.level, e.msg])).toEqual([
      [30, 'Mallard listening on http://127.0.0.1:8787'],
      [30, 'incoming request'],
      [30, 'request completed'],
      [50, 'request failed'],
    ]);
  });

  it('terminal: the request lines and Fastify\'s listening line are at debug, hidden at info', () => {
    const { log, entries } = capture('pretty', 'info');
    chatter(log);
    expect(entries().map((e) => [e.level, e.msg])).toEqual([
      [30, 'Mallard listening on http://127.0.0.1:8787'],
      [50, 'request failed'],
    ]);
  });

  it('terminal with LOG_LEVEL=debug: every line, the demoted ones at debug with their bindings', () => {
    const { log, entries } = capture('pretty', 'debug');
    chatter(log);
    expect(entries().map((e) => [e.level, e.msg, e.reqId])).toEqual([
      [20, 'Server listening at http://127.0.0.1:8787', undefined],
      [30, 'Mallard listening on http://127.0.0.1:8787', undefined],
      [20, 'incoming request', 'r1'],
      [20, 'request completed', 'r1'],
      [50, 'request failed', 'r1'],
    ]);
  });

  it('the format follows whether stdout is a terminal', () => {
    expect(logFormatFor({ isTTY: true })).toBe('pretty');
    expect(logFormatFor({ isTTY: false })).toBe('json');
    expect(logFormatFor({})).toBe('json');
  });
});

describe('a terminal line', () => {
  const time = new Date(2026, 10, 28, 12, 4, 5).getTime();
  const line = (entry: object) => `${JSON.stringify({ pid: 1, hostname: 'h', time, ...entry })}\n`;

  it('reads time, level and message, then the other fields', () => {
    expect(formatLogLine(line({ level: 30, msg: 'Mallard listening on http://127.0.0.1:8787' })))
      .toBe('12:04:05 INFO  Mallard listening on http://127.0.0.1:8787\n');
    expect(formatLogLine(line({ level: 40, msg: 'demo traffic could not be sent', site: 'abc', count: 3, detail: 'two words' })))
      .toBe('12:04:05 WARN  demo traffic could not be sent  site=abc count=3 detail="two words"\n');
  });

  it('a request line shows the method and URL, or the status and time', () => {
    expect(formatLogLine(line({ level: 20, reqId: 'r1', req: { method: 'GET', url: '/v1/query/scores', host: 'x' }, msg: 'incoming request' })))
      .toBe('12:04:05 DEBUG incoming request  reqId=r1 GET /v1/query/scores\n');
    expect(formatLogLine(line({ level: 20, reqId: 'r1', res: { statusCode: 200 }, responseTime: 3.25, msg: 'request completed' })))
      .toBe('12:04:05 DEBUG request completed  reqId=r1 200 3.3 ms\n');
  });

  it('an error shows its message, and its stack indented under the line', () => {
    const out = formatLogLine(line({ level: 50, msg: 'request failed', err: { type: 'Error', message: 'boom', stack: 'Error: boom\n    at f (a.ts:1:1)' } }));
    expect(out).toBe('12:04:05 ERROR request failed  err=boom\n    Error: boom\n    at f (a.ts:1:1)\n');
  });

  it('colours only when asked, and passes through what is not a JSON line', () => {
    expect(formatLogLine(line({ level: 30, msg: 'hi' }), true)).toBe('\x1b[90m12:04:05\x1b[0m \x1b[32mINFO \x1b[0m hi\n');
    expect(formatLogLine('not json\n')).toBe('not json\n');
  });

  it('a request line keeps the redacted URL the serializer wrote', () => {
    const lines: string[] = [];
    const options = loggerOptions('info') as { serializers: { req: (req: unknown) => unknown } };
    const log = pino({ level: 'info', serializers: options.serializers }, { write: (l: string) => { lines.push(formatLogLine(l)); } });
    log.info({ req: { method: 'GET', url: '/v1/manage/privacy/export?visitor_id=someone&site_id=s', host: 'h', ip: '127.0.0.1' } }, 'incoming request');
    expect(lines[0]).toContain('GET /v1/manage/privacy/export?visitor_id=[redacted]&site_id=s');
    expect(lines[0]).not.toContain('someone');
  });
});
