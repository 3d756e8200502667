// Deploy after-scores against the number of tracked deploys: one refreshDeploysAfter over the
// same 300,000 events (and 30,000 signals) of the last 10 minutes, first with 1 deploy tracked
// and then with 60 (one every 5 s, as the soak test records them), SQLite. The deploys share one
// read of their window, so the ratio should stay near 1, not grow with the number of deploys.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { refreshDeploysAfter } from '../src/pipeline/cycle.ts';
import { openStore } from '../src/store/db.ts';
import { benchStore } from './ingest.ts';

const EVENTS = 300_000;
const SIGNAL_EVERY = 10;
const DEPLOYS = 60;
const PAGES = 50;
const USERS = 5000;
const MIN = 60_000;
const SPAN = 10 * MIN;
const TYPES = ['rage_click', 'dead_click', 'form_friction'];

/** Events spread over [cycleAt - 10 min, cycleAt), on random pages by random users; deploys every 5 s from 10 to 5 minutes before. */
function addRows(path: string, siteId: string, cycleAt: number) {
  let seed = 42;
  const rnd = () => ((seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0) / 2 ** 32);
  const file = new SQLite(path);
  file.pragma('journal_mode = WAL');
  file.pragma('synchronous = OFF');
  const event = file.prepare(`insert into events (id, site_id, sid, visitor_id, type, page, occurred_at, client_ts, received_at, dedupe_key, environment) values (?, ?, ?, ?, 'pageview', ?, ?, ?, ?, ?, 'production')`);
  const signal = file.prepare(`insert into signals (id, site_id, event_id, sid, visitor_id, signal_type, page, element, label, confidence, occurred_at, environment) values (?, ?, ?, ?, ?, ?, ?, 'button.pay', 'Pay', ?, ?, 'production')`);
  const deploy = file.prepare(`insert into deploys (id, site_id, version, environment, deployed_at, confusion_before, pages_before, created_at) values (?, ?, ?, 'production', ?, 0, '[]', ?)`);
  file.transaction(() => {
    for (let i = 0; i < EVENTS; i++) {
      const at = cycleAt - SPAN + Math.floor((i * SPAN) / EVENTS);
      const user = `u${Math.floor(rnd() * USERS)}`;
      const page = `/page-${Math.floor(rnd() * PAGES)}`;
      event.run(`e${i}`, siteId, user, user, page, at, at, at, `k${i}`);
      if (i % SIGNAL_EVERY === 0) signal.run(`s${i}`, siteId, `e${i}`, user, user, TYPES[i % TYPES.length], page, rnd(), at);
    }
    for (let d = 0; d < DEPLOYS; d++) deploy.run(`d${d}`, siteId, `v${d}`, cycleAt - SPAN + d * 5000, cycleAt);
  })();
  file.close();
}

async function timeRefresh(url: string, siteId: string, cycleAt: number, deploys: number, runs = 3): Promise<number> {
  const store = openStore(url);
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    const updated = await refreshDeploysAfter(store.db, siteId, cycleAt);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
    if (updated !== deploys) throw new Error(`expected ${deploys} deploys updated, got ${updated}`);
  }
  await store.close();
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)];
}

export async function runDeploysBench(): Promise<string> {
  const { dir, url, store, org } = await benchStore('mallard-bench-');
  await store.close();
  const cycleAt = Math.floor(Date.now() / (15 * MIN)) * 15 * MIN;
  const path = join(dir, 'bench.db');
  addRows(path, org.site_id, cycleAt);
  const sixty = await timeRefresh(url, org.site_id, cycleAt, DEPLOYS);
  // The oldest deploy alone: the same window to read, one deploy to score.
  const file = new SQLite(path);
  file.prepare(`delete from deploys where site_id = ? and id != 'd0'`).run(org.site_id);
  file.close();
  const one = await timeRefresh(url, org.site_id, cycleAt, 1);
  rmSync(dir, { recursive: true, force: true });
  return [
    `One refreshDeploysAfter (median of 3) over ${EVENTS.toLocaleString('en')} events and ${(EVENTS / SIGNAL_EVERY).toLocaleString('en')} signals of the last 10 minutes (${PAGES} pages, ${USERS} users), SQLite.`,
    '',
    '| deploys tracked | refresh time (ms) |',
    '|---|---|',
    `| 1 | ${one.toFixed(0)} |`,
    `| ${DEPLOYS} (one every 5 s) | ${sixty.toFixed(0)} |`,
    '',
    `- ${DEPLOYS} / 1: **${(sixty / one).toFixed(2)}x** (target under 2x: one read serves every deploy).`,
  ].join('\n');
}
