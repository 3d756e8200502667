// `mallard serve` with the demo: the first start seeds it before listening and prints the
// block; every start with the demo keeps a trickle of live traffic flowing while it serves.
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import { startServer, type RunningServer } from '../server.ts';
import type { LogFormat } from '../logs/terminal-log.ts';
import { demoBlock, prepareDemo, startTrickle, type DemoOptions, type DemoState, type Trickle } from './first-run.ts';

export interface ServeOptions {
  worker?: boolean;
  /** The server's log format (server.ts StartOptions). */
  logFormat?: LogFormat;
  demo?: DemoOptions;
  /** Where the demo block goes (default stdout). */
  print?: (text: string) => void;
  /** Live demo traffic (default on). */
  trickle?: boolean;
}

export interface Served { server: RunningServer; demo: DemoState | null; stop(): Promise<void> }

export async function serveWithDemo(config: Config, clock: Clock, options: ServeOptions = {}): Promise<Served> {
  let demo: DemoState | null = null;
  const server = await startServer(config, clock, {
    worker: options.worker,
    logFormat: options.logFormat,
    beforeListen: config.demo ? async (store) => { demo = await prepareDemo(store, config, clock, options.demo); } : undefined,
  });
  const state = demo as DemoState | null;
  let trickle: Trickle | null = null;
  if (state) {
    (options.print ?? ((text: string) => console.log(text)))(demoBlock(state, server.url));
    if (state.status !== 'skipped' && options.trickle !== false) {
      trickle = startTrickle(server.app, state.credentials, clock, {
        sessionsPerDay: options.demo?.sessionsPerDay,
        log: (err) => server.app.log.warn({ err }, 'demo traffic could not be sent'),
      });
    }
  }
  return {
    server,
    demo: state,
    async stop() {
      await trickle?.stop();
      await server.stop();
    },
  };
}
