// Sends or stores what generate.ts plans. Two targets:
// - a store (the demo, and `mallard simulate` without --url): an in-process app on the store,
//   so every batch goes through the real POST /v1/ingest (import mode) and every action
//   through the real /v1/manage routes, with a clock set to the simulated time; pipeline
//   cycles are run "as of" each time in order, the story's actions between them.
// - a server (`mallard simulate --url --key`): batches are POSTed to its /v1/ingest.
import { buildApp, type App } from '../app.ts';
import { ManualClock } from '../clock.ts';
import type { Config } from '../config.ts';
import { MemoryRateLimiter } from '../store/rate-limit.ts';
import type { Kysely } from 'kysely';
import type { Store } from '../store/db.ts';
import type { Database } from '../store/tables.ts';
import { runCycle } from '../pipeline/cycle.ts';
import { runDeliveryOnce } from '../delivery/worker.ts';
import type { AlertRuleSpec, SimAction, SimBatch, SimPlan } from './generate.ts';
import { HOUR_MS } from '../domain/time.ts';
import { uploadDemoClips, type DemoClipSummary } from '../demo/clip-uploads.ts';

export type Progress = (phase: 'ingest' | 'pipeline', done: number, total: number) => void;

export interface StoreSeedOptions {
  store: Store;
  config: Config;
  siteId: string;
  /** A secret key of the site with ingest:write and manage:write. */
  secretKey: string;
  plan: SimPlan;
  /** Pipeline interval for the backfill (default: the config's). */
  intervalMs?: number;
  /** Run the pipeline over the period (default true). */
  pipeline?: boolean;
  /**
   * What the backfill's cycles run on: store.db by default (nothing else waits on this
   * process's main thread), store.pipelineDb to run them as the scheduler does.
   */
  cycleDb?: Kysely<Database>;
  /** Send the notifications queued along the way, as the delivery worker would (default true). */
  deliver?: boolean;
  onProgress?: Progress;
  log?: (line: string) => void;
  /** Funnels to save on the site (through POST /v1/manage/funnels), unless one of that name exists. */
  funnels?: readonly FunnelSpec[];
  /** The production SDK config's `clips` setting (through PATCH /v1/manage/sdk-config/production). */
  clips?: { enabled: boolean; unmask?: string[]; allow_media?: boolean };
}

/** A saved funnel as POST /v1/manage/funnels takes it. */
export interface FunnelSpec { name: string; steps: string[]; window_minutes: number }

export interface SeedSummary {
  sessions: number;
  events: number;
  accepted: number;
  rejected: number;
  cycles: number;
  deploys: number;
  resolved: number;
  rules: number;
  deliveries: number;
  /** Clips and page snapshots stored (with clips on). */
  clips?: DemoClipSummary;
}

const UNLIMITED = { query: 1e9, manage: 1e9, ingest: 1e9, guide: 1e9, mcp: 1e9 };
const CONCURRENCY = 48;

/** An app on the store for the simulator's own use: never listening, limits lifted, silent. */
export async function simulatorApp(store: Store, config: Config, clock: ManualClock): Promise<App> {
  const app = await buildApp({ config: { ...config, logLevel: 'silent', rateLimits: UNLIMITED }, store, clock, limiter: new MemoryRateLimiter(), logger: false });
  await app.ready();
  return app;
}

async function call(app: App, key: string, method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown) {
  const res = await app.inject({ method, url, headers: { authorization: `Bearer ${key}` }, ...(payload === undefined ? {} : { payload: payload as object }) });
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body.slice(0, 300)}`);
  return res.json().data;
}

/** POSTs batches through the app's ingest route, a few at a time so they commit in groups. */
export async function ingestBatches(app: App, key: string, batches: readonly SimBatch[], options: { import: boolean; onBatch?: () => void }) {
  let accepted = 0;
  let rejected = 0;
  let next = 0;
  const worker = async () => {
    while (next < batches.length) {
      const batch = batches[next++];
      const data = await call(app, key, 'POST', '/v1/ingest', options.import ? { ...batch, import: true } : batch);
      accepted += data.accepted;
      rejected += data.rejected;
      options.onBatch?.();
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return { accepted, rejected };
}

async function applyAction(app: App, key: string, siteId: string, action: SimAction, log: (line: string) => void): Promise<SimAction['kind'] | null> {
  switch (action.kind) {
    case 'rule':
      return (await createRule(app, key, siteId, action.rule)) ? 'rule' : null;
    case 'deploy':
      await call(app, key, 'POST', '/v1/manage/deploys', {
        site_id: siteId, version: action.version, environment: 'production', commit_sha: action.commit_sha,
        description: action.description, author: 'ci@shop.example', provider: 'github',
      });
      return 'deploy';
    case 'annotate':
      await call(app, key, 'POST', '/v1/manage/annotations', action.page ? { site_id: siteId, message: action.message, page: action.page } : { site_id: siteId, message: action.message });
      return 'annotate';
    case 'resolve': {
      let resolved = 0;
      for (const type of action.types) {
        const list = await call(app, key, 'GET', `/v1/query/issues?site_id=${siteId}&limit=200`);
        const issue = (list.issues as { id: string; page: string; element_selector: string; type: string; status: string }[])
          .find((i) => i.page === action.page && i.element_selector === action.element && i.type === type);
        if (!issue) { log(`simulate: no ${type} issue on ${action.element} (${action.page}) to resolve yet`); continue; }
        await call(app, key, 'PATCH', `/v1/manage/issues/${issue.id}?site_id=${siteId}`, { status: 'resolved', note: action.note, assigned_to: 'dev@shop.example' });
        resolved++;
      }
      return resolved ? 'resolve' : null;
    }
  }
}

/**
 * How a backfill spaces its cycles, to keep a first start fast: the last 12 hours at the
 * pipeline's interval, the 3 days before hourly, anything older every 2 hours. Each cycle
 * scores the window since the previous one, so no traffic is skipped.
 */
export const BACKFILL_TIERS: readonly { within: number; everyMs: number | null }[] = [
  { within: 12 * HOUR_MS, everyMs: null },
  { within: 3 * 24 * HOUR_MS, everyMs: HOUR_MS },
  { within: Infinity, everyMs: 2 * HOUR_MS },
];

/** Cycle times (and each cycle's scoring window) for a backfill of [start, end], in order. */
export function backfillTimes(start: number, end: number, intervalMs: number): { at: number; windowMs: number }[] {
  const times: { at: number; windowMs: number }[] = [];
  for (let i = BACKFILL_TIERS.length - 1; i >= 0; i--) {
    const tier = BACKFILL_TIERS[i];
    const every = Math.max(intervalMs, tier.everyMs ?? intervalMs);
    const from = Math.max(start, end - tier.within);
    const until = i === 0 ? end + 1 : Math.max(start, end - BACKFILL_TIERS[i - 1].within);
    for (let t = Math.ceil(from / every) * every; t < until; t += every) {
      const previous = times.length ? times[times.length - 1].at : null;
      // Where tiers meet, the first finer cycle scores everything since the last coarser one.
      if (previous === null || t > previous) times.push({ at: t, windowMs: previous === null ? every : Math.max(every, t - previous) });
    }
  }
  return times;
}

/** Creates a rule unless the site already has one of that name (a second run adds none). */
async function createRule(app: App, key: string, siteId: string, rule: AlertRuleSpec): Promise<boolean> {
  const existing = await call(app, key, 'GET', `/v1/manage/alert-rules?site_id=${siteId}`);
  if ((existing.rules as { name: string }[]).some((r) => r.name === rule.name)) return false;
  await call(app, key, 'POST', '/v1/manage/alert-rules', { site_id: siteId, ...rule });
  return true;
}

/** Saves a funnel unless the site already has one of that name (a second run adds none). */
async function saveFunnel(app: App, key: string, siteId: string, funnel: FunnelSpec): Promise<void> {
  const existing = await call(app, key, 'GET', `/v1/manage/funnels?site_id=${siteId}`);
  if ((existing.funnels as { name: string }[]).some((f) => f.name === funnel.name)) return;
  await call(app, key, 'POST', '/v1/manage/funnels', { site_id: siteId, ...funnel });
}

/**
 * Stores a plan on a site: rules (and the funnels asked for) first, then every batch (import mode, through the ingest
 * route), then pipeline cycles from the start to the end with the story's actions between them.
 */
export async function seedStore(options: StoreSeedOptions): Promise<SeedSummary> {
  const { store, config, siteId, secretKey: key, plan } = options;
  const log = options.log ?? (() => {});
  const intervalMs = options.intervalMs ?? config.pipelineIntervalMs;
  const clock = new ManualClock(plan.start);
  const app = await simulatorApp(store, config, clock);
  const summary: SeedSummary = { sessions: plan.sessions, events: plan.events, accepted: 0, rejected: 0, cycles: 0, deploys: 0, resolved: 0, rules: 0, deliveries: 0 };
  try {
    for (const rule of plan.rules) if (await createRule(app, key, siteId, rule)) summary.rules++;
    for (const funnel of options.funnels ?? []) await saveFunnel(app, key, siteId, funnel);
    if (options.clips) await call(app, key, 'PATCH', `/v1/manage/sdk-config/production?site_id=${siteId}`, { clips: options.clips });

    // Imports keep their timestamps when they are no older than 90 days from "now".
    clock.set(plan.end);
    let sent = 0;
    const ingested = await ingestBatches(app, key, plan.batches, {
      import: true,
      onBatch: () => { sent++; if (sent % 200 === 0 || sent === plan.batches.length) options.onProgress?.('ingest', sent, plan.batches.length); },
    });
    summary.accepted = ingested.accepted;
    summary.rejected = ingested.rejected;
    // With clips on, the demo's clips and page snapshots go through the upload route too.
    if (options.clips?.enabled) summary.clips = await uploadDemoClips(app, store.db, key, siteId, plan.end);

    if (options.pipeline === false) {
      for (const action of plan.actions.filter((a) => a.kind === 'annotate' || a.kind === 'rule')) { clock.set(action.at); await applyAction(app, key, siteId, action, log); }
      return summary;
    }
    const times = backfillTimes(plan.start, plan.end, intervalMs);
    const actions = [...plan.actions];
    for (const [i, { at, windowMs }] of times.entries()) {
      while (actions.length && actions[0].at <= at) {
        const action = actions.shift()!;
        clock.set(action.at);
        const done = await applyAction(app, key, siteId, action, log);
        if (done === 'deploy') summary.deploys++;
        if (done === 'resolve') summary.resolved++;
        if (done === 'rule') summary.rules++;
      }
      clock.set(at);
      // A cycle another process is running for the site ('busy') is left to it.
      if ((await runCycle(options.cycleDb ?? store.db, siteId, at, { intervalMs: windowMs, clock })).status === 'done') summary.cycles++;
      if ((i + 1) % 24 === 0 || i === times.length - 1) options.onProgress?.('pipeline', i + 1, times.length);
    }
    if (options.deliver !== false) {
      // Notifications of the alerts fired along the way: what the delivery worker would have sent.
      clock.set(plan.end);
      const { secrets, targets } = app.services;
      const deps = { store, secrets, clock, policy: targets, config };
      for (let round = 0; round < 50; round++) {
        const done = await runDeliveryOnce(deps);
        summary.deliveries += done.sent + done.notified;
        if (done.fannedOut + done.sent + done.notified === 0) break;
      }
    }
    return summary;
  } finally {
    await app.close();
  }
}

export interface HttpSendOptions {
  url: string;
  key: string;
  batches: readonly SimBatch[];
  /** A secret key with ingest:write keeps the simulated times (import); a publishable key sends live. */
  import: boolean;
  siteId?: string;
  onProgress?: (done: number, total: number) => void;
  fetchImpl?: typeof fetch;
}

/** POSTs batches to a server's /v1/ingest, a few at a time. */
export async function sendOverHttp(options: HttpSendOptions): Promise<{ accepted: number; rejected: number }> {
  const endpoint = `${options.url.replace(/\/$/, '')}/v1/ingest`;
  const doFetch = options.fetchImpl ?? fetch;
  let accepted = 0;
  let rejected = 0;
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < options.batches.length) {
      const batch = options.batches[next++];
      const body = { ...batch, ...(options.import ? { import: true } : {}), ...(options.siteId ? { site_id: options.siteId } : {}) };
      // Live batches are sent "now": the server shifts them to its clock, keeping their gaps.
      const res = await doFetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${options.key}` },
        body: JSON.stringify(body),
      });
      const text = await res.text();
      if (res.status !== 202) {
        let reason = text.slice(0, 200);
        try {
          const error = (JSON.parse(text) as { error?: { code?: string; message?: string } }).error;
          if (error?.code) reason = `${error.code}: ${error.message ?? ''}`;
        } catch { /* not JSON: keep the text */ }
        throw new Error(`the server answered ${res.status} (${reason})`);
      }
      const data = (JSON.parse(text) as { data: { accepted: number; rejected: number } }).data;
      accepted += data.accepted;
      rejected += data.rejected;
      done++;
      if (done % 100 === 0 || done === options.batches.length) options.onProgress?.(done, options.batches.length);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return { accepted, rejected };
}
