// A redis-server of the test's own, on a free port, that the test may kill, stop, pause and
// restart: the shared Redis (TEST_REDIS_URL) is never touched. Nothing is persisted (no RDB,
// no AOF), so a killed server comes back empty, as a real restart without persistence does.
//
//   if (privateRedisAvailable('the Redis fallback suite')) {
//     const redis = await startPrivateRedis();
//     await redis.kill();     // SIGKILL, as a crash
//     await redis.restart();  // the same port, empty
//     await redis.stop();
//   }
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

const IN_CI = process.env.CI === 'true' || process.env.CI === '1';

/** redis-server on PATH (Debian's package puts it in /usr/bin), or null. */
export function redisServerPath(): string | null {
  for (const dir of [...(process.env.PATH ?? '').split(delimiter), '/usr/bin', '/usr/local/bin']) {
    if (dir && existsSync(join(dir, 'redis-server'))) return join(dir, 'redis-server');
  }
  return null;
}

/** Whether a suite can start its own Redis; without redis-server it skips with a line (and fails under CI). */
export function privateRedisAvailable(suite: string): boolean {
  if (redisServerPath()) return true;
  const line = 'redis-server is not installed (not on PATH)';
  if (IN_CI) throw new Error(`CI=true and ${line}: failing instead of skipping`);
  console.warn(`SKIPPING the ${suite}: ${line}`);
  return false;
}

export interface PrivateRedis {
  /** redis://127.0.0.1:<port> */
  url: string;
  port: number;
  /** Whether the server process is alive (a paused one is). */
  running(): boolean;
  /** SIGKILL, as a crash: connections drop at once. Resolves once the process is gone. */
  kill(): Promise<void>;
  /** SIGSTOP: connections stay open and nothing answers, as a hung server. */
  pause(): void;
  /** SIGCONT after pause(). */
  resume(): void;
  /** Starts it again on the same port (killing it first if it still runs); resolves once it answers PING. */
  restart(): Promise<void>;
  /** Stops it for good and removes its directory. */
  stop(): Promise<void>;
}

const freePort = () => new Promise<number>((done, fail) => {
  const server = createServer().once('error', fail).listen(0, '127.0.0.1', () => {
    const { port } = server.address() as AddressInfo;
    server.close(() => done(port));
  });
});

const exited = (child: ChildProcess) => new Promise<void>((done) => {
  if (child.exitCode !== null || child.signalCode !== null) done(); else child.once('exit', () => done());
});

/** One PING on a fresh connection: true on +PONG. */
const pong = (port: number) => new Promise<boolean>((done) => {
  const socket = connect(port, '127.0.0.1');
  let reply = '';
  const finish = (ok: boolean) => { socket.destroy(); done(ok); };
  socket.setTimeout(500, () => finish(false));
  socket.once('error', () => finish(false));
  socket.once('connect', () => socket.write('PING\r\n'));
  socket.on('data', (chunk) => {
    reply += chunk;
    if (reply.includes('\r\n')) finish(reply.startsWith('+PONG'));
  });
});

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const binary = redisServerPath();
  if (!binary) throw new Error('redis-server is not installed (not on PATH)');
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'mallard-redis-'));
  let child: ChildProcess | null = null;
  let output = '';
  // A test process that dies never leaves its server behind.
  const killOnExit = () => child?.kill('SIGKILL');
  process.once('exit', killOnExit);

  const alive = () => child !== null && child.exitCode === null && child.signalCode === null;

  async function launch() {
    output = '';
    const started = spawn(binary!, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    started.stdout!.on('data', (c) => { output += c; });
    started.stderr!.on('data', (c) => { output += c; });
    child = started;
    for (let i = 0; i < 200; i++) {
      if (!alive()) throw new Error(`redis-server on port ${port} exited at start: ${output}`);
      if (await pong(port)) return;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`redis-server on port ${port} never answered PING: ${output}`);
  }

  async function kill() {
    if (!child || !alive()) return;
    const dying = child;
    dying.kill('SIGKILL');
    await exited(dying);
  }

  await launch();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    running: alive,
    kill,
    pause: () => { child?.kill('SIGSTOP'); },
    resume: () => { child?.kill('SIGCONT'); },
    async restart() {
      await kill();
      await launch();
    },
    async stop() {
      if (child && alive()) {
        const stopping = child;
        // A paused server would hold SIGTERM until resumed.
        stopping.kill('SIGCONT');
        stopping.kill('SIGTERM');
        const timer = setTimeout(() => stopping.kill('SIGKILL'), 5000);
        await exited(stopping);
        clearTimeout(timer);
      }
      process.removeListener('exit', killOnExit);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
