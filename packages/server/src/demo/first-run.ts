// The first start of `npm start`: on an empty store (and unless MALLARD_DEMO=0), a demo org,
// site, owner and keys, 14 days of simulated traffic through the real ingest route, the
// pipeline backfilled over them, and the credentials written to the data dir (0600). Later
// starts find the credentials file and only point at it. While the demo serves, a trickle of
// live sessions keeps it fresh.
import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { App } from '../app.ts';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import { Secrets } from '../auth/secrets.ts';
import type { Store } from '../store/db.ts';
import { bootstrapOrg } from '../features/orgs/bootstrap.ts';
import { generateLiveBatches, generatePlan } from '../simulate/generate.ts';
import { ingestBatches, seedStore, type Progress, type SeedSummary } from '../simulate/run.ts';
import { HOURLY, SITE_ORIGIN } from '../simulate/scenario.ts';
import { runPeriodically, type Periodic } from '../jobs/periodic.ts';
import { DAY_MS } from '../domain/time.ts';
import { DEMO_CLIPS_CONFIG } from './demo-pages.ts';

export const DEMO_EMAIL = 'demo@mallard.example';
export const DEMO_DAYS = 14;
export const DEMO_SESSIONS_PER_DAY = 250;
export const CREDENTIALS_FILE = 'demo-credentials.json';

export interface DemoCredentials {
  org_id: string;
  site_id: string;
  user_id: string;
  email: string;
  password: string;
  keys: { secret: string; mcp: string; publishable: string };
  seed: string;
  created_at: string;
  /** False while the first start is still filling the demo (an interrupted first start leaves it so). */
  complete: boolean;
}

export type DemoState =
  | { status: 'created'; path: string; credentials: DemoCredentials; summary: SeedSummary; ms: number }
  | { status: 'reused'; path: string; credentials: DemoCredentials }
  /** The store already holds data that is not the demo's: nothing is added. */
  | { status: 'skipped'; reason: string };

export interface DemoOptions {
  days?: number;
  sessionsPerDay?: number;
  seed?: string;
  log?: (line: string) => void;
  onProgress?: Progress;
}

export const credentialsPath = (config: Config) => join(config.dataDir, CREDENTIALS_FILE);

function readCredentials(path: string): DemoCredentials {
  return JSON.parse(readFileSync(path, 'utf8')) as DemoCredentials;
}

/** Written whole (temp file, then rename), readable by its owner only. */
function writeCredentials(path: string, credentials: DemoCredentials) {
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temp, 0o600);
  renameSync(temp, path);
}

/**
 * The demo's saved funnel: the simulated shop's way to a purchase (simulate/scenario.ts: product
 * pages, /cart, /checkout, and the checkout_completed event sent on /checkout/complete), so the
 * planted checkout problems show as friction where people drop.
 */
export const DEMO_FUNNELS = [{ name: 'Checkout', steps: ['/products/*', '/cart', '/checkout', 'checkout_completed'], window_minutes: 60 }];

/** Creates the demo on the first start, or finds the one made before. */
export async function prepareDemo(store: Store, config: Config, clock: Clock, options: DemoOptions = {}): Promise<DemoState> {
  const path = credentialsPath(config);
  if (existsSync(path)) {
    const credentials = readCredentials(path);
    // The file may be left from another store (DATABASE_URL changed, the data dir did not):
    // only a demo org this store holds is reused; otherwise the file is replaced below.
    const org = await store.db.selectFrom('orgs').select('id').where('id', '=', credentials.org_id).executeTakeFirst();
    if (org) return { status: 'reused', path, credentials };
  }
  const existing = await store.db.selectFrom('orgs').select('id').limit(1).executeTakeFirst();
  if (existing) return { status: 'skipped', reason: 'the store already has data' };

  const started = Date.now();
  const log = options.log ?? (() => {});
  const days = options.days ?? DEMO_DAYS;
  const sessionsPerDay = options.sessionsPerDay ?? DEMO_SESSIONS_PER_DAY;
  const seed = options.seed ?? 'mallard-demo';
  const password = `duck-${randomBytes(9).toString('base64url')}`;
  const now = clock.now();
  const org = await bootstrapOrg(store, new Secrets(config.secret), {
    org: 'Demo Org', siteName: 'Acme Shop (demo)', siteUrl: SITE_ORIGIN, email: DEMO_EMAIL, password,
  }, now);
  // Written at once, so an interrupted first start never loses the keys.
  const credentials: DemoCredentials = {
    org_id: org.org_id, site_id: org.site_id, user_id: org.user_id, email: org.email, password,
    keys: org.keys, seed, created_at: new Date(now).toISOString(), complete: false,
  };
  writeCredentials(path, credentials);
  const plan = generatePlan({ days, sessionsPerDay, seed, end: now });
  log(`Demo: simulating ${days} days of traffic (${plan.sessions} sessions, ${plan.events} events) and scoring them...`);
  const summary = await seedStore({ store, config, siteId: org.site_id, secretKey: org.keys.secret, plan, onProgress: options.onProgress, log, funnels: DEMO_FUNNELS, clips: DEMO_CLIPS_CONFIG });
  credentials.complete = true;
  writeCredentials(path, credentials);
  return { status: 'created', path, credentials, summary, ms: Date.now() - started };
}

/** The address to print: a wildcard listen address is reached through loopback. */
export function reachableUrl(url: string): string {
  return url.replace('//0.0.0.0:', '//127.0.0.1:').replace('//[::]:', '//localhost:');
}

/** What the first start prints, once. Every command in it works as printed. */
export function demoBlock(state: DemoState, url: string): string {
  if (state.status === 'skipped') return `Demo: not created (${state.reason}). MALLARD_DEMO=0 silences this line.`;
  const shown = relative(process.cwd(), state.path);
  const where = shown && !shown.startsWith('..') ? `./${shown}` : state.path;
  const base = reachableUrl(url);
  if (state.status === 'reused') {
    return state.credentials.complete === false
      ? `Demo data is incomplete (its first start was interrupted): its login and keys are in ${where}; delete ${where.replace(/[\\/][^\\/]+$/, '')} to start over.`
      : `Demo data in use: sign in at ${base}/app/ with the login in ${where}`;
  }
  const { credentials: c } = state;
  return [
    '',
    `Mallard is running at ${base} with a demo site (Acme Shop, ${state.summary.sessions} simulated sessions).`,
    '',
    `  Dashboard        ${base}/app/`,
    `  Demo login       ${c.email} / ${c.password}`,
    `  Secret key       ${c.keys.secret}`,
    `  MCP key          ${c.keys.mcp}`,
    `  Publishable key  ${c.keys.publishable}`,
    '',
    '  Try:',
    `  curl -s -H "Authorization: Bearer ${c.keys.secret}" ${base}/v1/query/scores`,
    `  curl -s -H "Authorization: Bearer ${c.keys.secret}" "${base}/v1/query/issues?status=open&limit=5"`,
    '',
    `  Saved to ${where} (readable by you only); shown once. MALLARD_DEMO=0 skips the demo.`,
    '',
  ].join('\n');
}

export type Trickle = Periodic;

/**
 * Live traffic for the demo: about the simulated daily volume, following the hourly curve,
 * sent through the app's own ingest route with the publishable key, as a browser would.
 */
export function startTrickle(app: App, credentials: DemoCredentials, clock: Clock, options: { sessionsPerDay?: number; everyMs?: number; log?: (err: Error) => void } = {}): Trickle {
  const everyMs = options.everyMs ?? 30_000;
  const perDay = options.sessionsPerDay ?? DEMO_SESSIONS_PER_DAY;
  const meanHour = HOURLY.reduce((a, b) => a + b, 0) / HOURLY.length;
  let carry = 0;
  return runPeriodically(everyMs, async () => {
    const now = clock.now();
    carry += (perDay * everyMs / DAY_MS) * (HOURLY[new Date(now).getUTCHours()] / meanHour);
    const count = Math.floor(carry);
    if (count < 1) return;
    carry -= count;
    await ingestBatches(app, credentials.keys.publishable, generateLiveBatches(credentials.seed, now, count), { import: false });
  }, (err) => options.log?.(err));
}
