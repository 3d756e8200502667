// Progress for long simulator runs: a cli-progress bar on a terminal, nothing otherwise
// (logs and test output stay clean).
import { Presets, SingleBar } from 'cli-progress';
import type { Progress } from './run.ts';

export function progressBars(stream: NodeJS.WriteStream = process.stderr): { onProgress: Progress; stop(): void } {
  if (!stream.isTTY) return { onProgress: () => {}, stop: () => {} };
  let bar: SingleBar | null = null;
  let phase: string | null = null;
  const labels: Record<string, string> = { ingest: 'ingest  ', pipeline: 'pipeline' };
  return {
    onProgress(next, done, total) {
      if (phase !== next) {
        bar?.stop();
        phase = next;
        bar = new SingleBar({ format: `${labels[next] ?? next} [{bar}] {value}/{total} {unit} {eta_formatted} left`, stream, hideCursor: true }, Presets.legacy);
        bar.start(total, 0, { unit: next === 'ingest' ? 'batches' : 'cycles' });
      }
      bar!.update(done);
      if (done >= total) { bar!.stop(); bar = null; }
    },
    stop() { bar?.stop(); bar = null; },
  };
}
