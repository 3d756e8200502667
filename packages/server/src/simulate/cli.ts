// `mallard simulate`: realistic synthetic traffic through the real ingest path, either into a
// site of this store (with the pipeline backfilled and the story's deploys and fixes) or to
// any Mallard server over HTTP.
import { revokeAsOperator } from '../cli/keys.ts';
import { v7 as uuidv7 } from 'uuid';
import { SCOPES } from '../auth/api-keys.ts';
import { Secrets } from '../auth/secrets.ts';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import { insertKey } from '../features/keys/service.ts';
import { openStore } from '../store/db.ts';
import { migrateToLatest } from '../store/migrate.ts';
import { generatePlan } from './generate.ts';
import { progressBars } from './progress.ts';
import { seedStore, sendOverHttp } from './run.ts';
import { DAY_MS } from '../domain/time.ts';

export interface SimulateCliOptions {
  days: string;
  sessionsPerDay: string;
  seed: string;
  until?: string;
  site?: string;
  url?: string;
  key?: string;
  pipeline: boolean;
  ndjson?: boolean;
}

let pipeWatched = false;
/** `mallard simulate --ndjson | head` ends quietly when the reader goes away. */
function quietOnClosedPipe() {
  if (pipeWatched) return;
  pipeWatched = true;
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(0);
    throw err;
  });
}

/** Sessions one run may generate: the plan is held in memory (about 400 MB at this size). */
export const MAX_SESSIONS = 200_000;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function runSimulate(opts: SimulateCliOptions, config: () => Config, clock: Clock, usage: (message: string) => Error, out: (line: string) => void = console.log) {
  const days = Number(opts.days);
  if (!/^\d+(\.\d+)?$/.test(opts.days) || !(days > 0) || days > 90) throw usage(`--days must be a number above 0 and at most 90, got "${opts.days}"`);
  const sessionsPerDay = Number(opts.sessionsPerDay);
  if (!/^\d+$/.test(opts.sessionsPerDay) || sessionsPerDay < 1 || sessionsPerDay > MAX_SESSIONS) throw usage(`--sessions-per-day must be a whole number from 1 to ${MAX_SESSIONS}, got "${opts.sessionsPerDay}"`);
  // The whole plan is generated before it is sent (about 2 KB a session): bound it.
  if (days * sessionsPerDay > MAX_SESSIONS) throw usage(`--days x --sessions-per-day must be at most ${MAX_SESSIONS} sessions in one run, got ${Math.round(days * sessionsPerDay)}; run it in parts with --until`);
  let end = clock.now();
  if (opts.until !== undefined) {
    end = Date.parse(opts.until);
    if (!/^\d{4}-\d{2}-\d{2}/.test(opts.until) || Number.isNaN(end)) throw usage(`--until must be an ISO 8601 time, got "${opts.until}"`);
    if (end > clock.now() + 60_000 && !opts.ndjson) throw usage('--until must not be in the future');
  }
  if (opts.site !== undefined && !UUID.test(opts.site)) throw usage(`--site must be a site id (UUID), got "${opts.site}"`);
  if (opts.url !== undefined) {
    if (!opts.key) throw usage('--url needs --key (a publishable key, or a secret key with ingest:write)');
    try { new URL(opts.url); } catch { throw usage(`--url is not a valid URL: ${opts.url}`); }
    if (!/^svc_(pub|sec)_/.test(opts.key)) throw usage('--key must be a publishable (svc_pub_) or secret (svc_sec_) key');
  } else if (opts.key) {
    throw usage('--key goes with --url');
  } else if (!opts.site && !opts.ndjson) {
    throw usage('name the target: --site ID (this store, DATABASE_URL) or --url URL --key KEY (a server), or --ndjson to print');
  }

  const plan = generatePlan({ days, sessionsPerDay, seed: opts.seed, end });
  if (opts.ndjson) {
    quietOnClosedPipe();
    for (const batch of plan.batches) out(JSON.stringify(batch));
    return;
  }
  const from = new Date(plan.start).toISOString();
  const to = new Date(plan.end).toISOString();

  if (opts.url) {
    const importing = opts.key!.startsWith('svc_sec_');
    out(`Sending ${plan.sessions} sessions (${plan.events} events, ${from} to ${to}) to ${opts.url} ${importing ? 'as an import (times kept)' : 'live (the server stamps its own time)'}...`);
    const bars = progressBars();
    try {
      const sent = await sendOverHttp({
        url: opts.url, key: opts.key!, batches: plan.batches, import: importing, siteId: opts.site,
        onProgress: (done, total) => bars.onProgress('ingest', done, total),
      });
      out(`Done: ${sent.accepted} events accepted, ${sent.rejected} rejected.${importing ? ' Run `mallard pipeline --from` on that server to score the past.' : ''}`);
    } catch (err) {
      const cause = (err as Error & { cause?: Error }).cause;
      throw usage(`sending to ${opts.url} failed: ${(err as Error).message}${cause ? ` (${cause.message})` : ''}`);
    } finally {
      bars.stop();
    }
    return;
  }

  const cfg = config();
  const store = openStore(cfg.databaseUrl, { sqliteSynchronous: cfg.sqliteSynchronous });
  const bars = progressBars();
  let keyId: string | null = null;
  try {
    await migrateToLatest(store.db);
    const site = await store.db.selectFrom('sites').select(['id', 'org_id']).where('id', '=', opts.site!.toLowerCase()).where('deleted_at', 'is', null).executeTakeFirst();
    if (!site) throw usage(`--site ${opts.site} is not a site`);
    // A short-lived key for the simulator's own requests, revoked when it is done.
    const now = clock.now();
    const { key, raw } = await insertKey(store.db, new Secrets(cfg.secret), {
      orgId: site.org_id, siteId: site.id, type: 'secret', scopes: [...SCOPES], name: `simulate ${uuidv7().slice(0, 8)} (temporary)`, createdBy: 'simulate', expiresAt: now + DAY_MS,
    }, now);
    keyId = key.id;
    await store.db.insertInto('audit_log').values({
      id: uuidv7(), org_id: site.org_id, site_id: site.id, actor_type: 'system', actor_id: null, action: 'key.created',
      target_type: 'api_key', target_id: key.id, details: JSON.stringify({ key_type: 'secret', via: 'simulate', temporary: true }), created_at: now,
    }).execute();
    out(`Simulating ${plan.sessions} sessions (${plan.events} events, ${from} to ${to}) on site ${site.id}${opts.pipeline ? ', then running the pipeline over the period' : ''}...`);
    const summary = await seedStore({ store, config: cfg, siteId: site.id, secretKey: raw, plan, pipeline: opts.pipeline, onProgress: bars.onProgress, log: out });
    bars.stop();
    out(`Done: ${summary.accepted} events stored (${summary.rejected} rejected), ${summary.rules} alert rules, ${summary.deploys} deploys, ${summary.resolved} of ${plan.actions.filter((a) => a.kind === 'resolve').length} fixes applied (a fix needs its issue to exist first), ${summary.cycles} pipeline cycles.`);
  } finally {
    bars.stop();
    if (keyId) await revokeAsOperator(store.db, clock.now(), keyId);
    await store.close();
  }
}
