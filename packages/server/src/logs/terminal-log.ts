// What the logs look like. JSON lines (pino's own) unless stdout is a terminal, where each line
// is written as "12:04:05 INFO  message  key=value" and the per-request lines drop to `debug`
// (the heartbeat, logs/heartbeat.ts, sums them up instead). LOG_LEVEL rules either way.
//
// The terminal format is a synchronous stream in this process, not a pino transport: a
// transport writes from a worker thread, so its lines could land after the first-run banner
// that `mallard serve` prints last.
import { pino, type Logger, type LoggerOptions } from 'pino';

export type LogFormat = 'json' | 'pretty';

/** Pretty on a terminal, JSON lines anywhere else (a pipe, a file, a container's log). */
export const logFormatFor = (out: { isTTY?: boolean }): LogFormat => (out.isTTY ? 'pretty' : 'json');

const INFO = 30;
const REQUEST_LINES = new Set(['incoming request', 'request completed']);
// Fastify's own "Server listening at <url>": Mallard's "Mallard listening on <url>" says it once.
const FASTIFY_LISTENING = 'Server listening at ';

type LogMethodHook = NonNullable<NonNullable<LoggerOptions['hooks']>['logMethod']>;

/**
 * Moves to `debug` the info lines the format does not want: Fastify's listening line always,
 * and in the terminal format the two lines Fastify writes per request.
 */
export function demoteChatter(format: LogFormat): LogMethodHook {
  return function logMethod(this: Logger, args, method, level) {
    if (level === INFO) {
      const msg = typeof args[0] === 'string' ? args[0] : args[1];
      if (typeof msg === 'string' && (msg.startsWith(FASTIFY_LISTENING) || (format === 'pretty' && REQUEST_LINES.has(msg)))) {
        (this.debug as (...a: unknown[]) => void)(...args);
        return;
      }
    }
    method.apply(this, args);
  };
}

const LEVELS: Record<number, [name: string, color: number]> = {
  10: ['TRACE', 90], 20: ['DEBUG', 36], 30: ['INFO ', 32], 40: ['WARN ', 33], 50: ['ERROR', 31], 60: ['FATAL', 35],
};
const SHOWN_ELSEWHERE = new Set(['level', 'time', 'pid', 'hostname', 'msg']);
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const plain = (v: unknown) => (typeof v === 'string' && /^[\w./:@+-]*$/.test(v) ? v : JSON.stringify(v));

/** One pino JSON line as a terminal line (and an error's stack under it); anything else as it is. */
export function formatLogLine(line: string, color = false): string {
  let entry: unknown;
  try { entry = JSON.parse(line); } catch { entry = null; }
  if (!isRecord(entry)) return line.endsWith('\n') ? line : `${line}\n`;
  const paint = (code: number, text: string) => (color ? `\x1b[${code}m${text}\x1b[0m` : text);
  const [name, code] = LEVELS[entry.level as number] ?? [String(entry.level).toUpperCase().padEnd(5), 0];
  const time = new Date(typeof entry.time === 'number' ? entry.time : Date.now()).toTimeString().slice(0, 8);
  const details: string[] = [];
  let stack: string | null = null;
  for (const [key, value] of Object.entries(entry)) {
    if (SHOWN_ELSEWHERE.has(key) || value === undefined) continue;
    if (key === 'req' && isRecord(value)) details.push(`${value.method} ${value.url}`);
    else if (key === 'res' && isRecord(value)) details.push(String(value.statusCode));
    else if (key === 'responseTime' && typeof value === 'number') details.push(`${value.toFixed(1)} ms`);
    else if (key === 'err' && isRecord(value)) {
      details.push(`err=${plain(value.message)}`);
      if (typeof value.stack === 'string') stack = value.stack;
    } else details.push(`${key}=${plain(value)}`);
  }
  const head = `${paint(90, time)} ${paint(code, name)} ${String(entry.msg ?? '')}`;
  const tail = details.length ? `  ${paint(90, details.join(' '))}` : '';
  const under = stack ? `\n${paint(90, stack.split('\n').map((l) => `    ${l.trim()}`).join('\n'))}` : '';
  return `${head}${tail}${under}\n`;
}

/** A pino destination that writes formatLogLine's lines to `out`, coloured on a colour terminal. */
export function prettyStream(out: NodeJS.WritableStream & { isTTY?: boolean } = process.stdout): { write(line: string): boolean } {
  const color = Boolean(out.isTTY) && !process.env.NO_COLOR && process.env.TERM !== 'dumb';
  return { write: (line: string) => out.write(formatLogLine(line, color)) };
}

/** A logger of the server's kind outside Fastify (`mallard worker`, the rate limiter). */
export function processLogger(level: string, format: LogFormat): Logger {
  const options: LoggerOptions = { level, hooks: { logMethod: demoteChatter(format) } };
  return format === 'pretty' ? pino(options, prettyStream()) : pino(options);
}
