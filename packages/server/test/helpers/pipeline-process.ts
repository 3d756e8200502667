// Starts pipeline-child.ts processes on a store and sends them commands. `atOnce` gives the
// same command to several at the same moment, for the tests of what two workers do when they
// race: the claim of a site, the cooldown of an alert rule.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const CHILD = fileURLToPath(new URL('./pipeline-child.ts', import.meta.url));

export type PipelineCommand =
  | { op: 'alertStep'; siteId: string; cycleAt: number }
  | { op: 'runCycle'; siteId: string; cycleAt: number; intervalMs: number; now: number; holder: string }
  | { op: 'claimSite'; siteId: string; holder: string; cycleAt: number; now: number }
  | { op: 'releaseSite'; siteId: string; holder: string };

export interface PipelineProcess {
  /** Runs the command in the process; rejects with the process's error message if it failed. */
  send<T = unknown>(command: PipelineCommand): Promise<T>;
  close(): Promise<void>;
}

export function startPipelineProcess(storeUrl: string): Promise<PipelineProcess> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', CHILD, storeUrl], { stdio: ['pipe', 'pipe', 'inherit'] });
  const waiting: { resolve(line: string): void; reject(err: Error): void }[] = [];
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  child.on('exit', (code) => { for (const w of waiting.splice(0)) w.reject(new Error(`pipeline process exited with ${code}`)); });
  createInterface({ input: child.stdout! }).on('line', (line) => waiting.shift()?.resolve(line));
  const nextLine = () => new Promise<string>((resolve, reject) => waiting.push({ resolve, reject }));

  const handle: PipelineProcess = {
    async send<T>(command: PipelineCommand) {
      const answer = nextLine();
      child.stdin!.write(`${JSON.stringify(command)}\n`);
      const parsed = JSON.parse(await answer) as { ok: T } | { error: string };
      if ('error' in parsed) throw new Error(`${command.op} in a second process failed: ${parsed.error}`);
      return parsed.ok;
    },
    async close() {
      child.stdin!.end();
      await exited;
    },
  };
  return nextLine().then(() => handle);
}

/** The same command in every process at once; their answers in the same order. */
export function atOnce<T = unknown>(processes: PipelineProcess[], command: (index: number) => PipelineCommand): Promise<T[]> {
  return Promise.all(processes.map((p, i) => p.send<T>(command(i))));
}
