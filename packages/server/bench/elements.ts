// The "top elements" aggregate alone (no HTTP), on a SQLite store with many signals on one
// page within a day, stored through the real ingest path (storeBatches, which fills the element
// rollup): the rollup path (topElements) against the raw path (topElementsFromRaw: the same
// queries topElements ran before the rollup existed), in the same run, median of 9 calls each.
import { rmSync } from 'node:fs';
import { topElements, topElementsFromRaw, type ElementFilter } from '../src/features/scores/top-elements.ts';
import type { PreparedEvent } from '../src/ingest/prepare.ts';
import { storeBatches, type PendingBatch } from '../src/ingest/store-batch.ts';
import { benchStore } from './ingest.ts';

const SIGNALS = Number(process.env.BENCH_SIGNALS ?? 300_000);
const HOUR = 3_600_000;
const ELEMENTS = ['button.pay', 'button.submit', 'a.nav-link', 'input#email', 'button.add-to-cart', 'div.card', 'select#size', 'a.help', 'button.close', 'input#search', 'span.price', 'img.hero'];
const TYPES = ['rage_click', 'dead_click', 'error_click', 'thrash', 'hesitation', 'form_abandon', 'backtrack', 'scroll_bounce', 'slow_response', 'copy_attempt'];

async function median(run: () => Promise<unknown>, times = 9): Promise<number> {
  await run();
  const ms: number[] = [];
  for (let i = 0; i < times; i++) {
    const start = performance.now();
    await run();
    ms.push(performance.now() - start);
  }
  return ms.sort((a, b) => a - b)[Math.floor(times / 2)];
}

export async function runElementsBench(): Promise<string> {
  const { dir, store, org } = await benchStore('mallard-elements-');
  const now = Date.now();
  const start = now - 24 * HOUR;
  let n = 0;
  const began = performance.now();
  // 100-signal batches (a session), 16 per group as the group commit stores them, spread over
  // the day; a session's signals fall on 3 elements with 2 types (friction repeats on an element).
  for (let stored = 0; stored < SIGNALS;) {
    const group: PendingBatch[] = [];
    for (let b = 0; b < 16 && stored < SIGNALS; b++, stored += 100) {
      const sid = (n++).toString(16).padStart(32, '0');
      const at = start + Math.floor(((stored / SIGNALS) * 24 - 0.05) * HOUR);
      const events: PreparedEvent[] = Array.from({ length: 100 }, (_, i) => ({
        index: i, dedupeKey: `${sid}-${i}`, type: 'signal', page: '/checkout', occurredAt: Math.max(start, at + i * 1000), clientTs: at,
        name: null, signalType: TYPES[(n + (i % 2)) % TYPES.length], element: ELEMENTS[(n * 7 + (i % 3)) % ELEMENTS.length],
        label: `Label ${(n + i) % 5}`, props: null, referrerPage: null, referrerHost: null, userRef: null,
        signal: { confidence: 0.9, rx: null, ry: null, vx: null, vy: null },
      }));
      group.push({ meta: { siteId: org.site_id, sid, visitorId: `v${n % 20_000}`, environment: 'production', userAgent: null, viewportWidth: null, appVersion: null, conversionEvents: new Set() }, events, now });
    }
    await storeBatches(store.db, store.dialect, group);
  }
  const storeSeconds = (performance.now() - began) / 1000;
  const rollupRows = Number((await store.db.selectFrom('element_rollup').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

  const windows: [string, ElementFilter][] = [
    ['last 7 days, no end (page detail)', { since: now - 7 * 24 * HOUR, until: null, device: null }],
    ['the day, edges mid-hour', { since: start + 17 * 60_000, until: now - 23 * 60_000, device: null }],
    ['6 hours, hour-aligned', { since: Math.ceil((now - 8 * HOUR) / HOUR) * HOUR, until: Math.ceil((now - 2 * HOUR) / HOUR) * HOUR, device: null }],
  ];
  const lines = [
    `${SIGNALS.toLocaleString('en')} signals on one page over 24 hours, 20,000 visitors, 12 elements, 10 types, 100 signals per session on 3 elements x 2 types; stored through storeBatches in ${storeSeconds.toFixed(1)} s; ${rollupRows.toLocaleString('en')} rollup rows.`,
    '', '| window | raw (before) ms | rollup (after) ms | same answer |', '|---|---|---|---|',
  ];
  for (const [name, filter] of windows) {
    const raw = await topElementsFromRaw(store.db, org.site_id, '/checkout', filter, 20);
    const rolled = await topElements(store.db, org.site_id, '/checkout', filter, 20);
    const rawMs = await median(() => topElementsFromRaw(store.db, org.site_id, '/checkout', filter, 20));
    const rollupMs = await median(() => topElements(store.db, org.site_id, '/checkout', filter, 20));
    lines.push(`| ${name} | ${rawMs.toFixed(1)} | ${rollupMs.toFixed(1)} | ${JSON.stringify(raw) === JSON.stringify(rolled) ? 'yes' : 'NO'} |`);
  }
  await store.close();
  rmSync(dir, { recursive: true, force: true });
  return lines.join('\n');
}
