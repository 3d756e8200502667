// Deploy after-scores come from one read of [oldest tracked deploy, T) swept newest first
// (spanScores), no longer from one scan per deploy. These tests hold the sweep to the old
// per-deploy scoreSpan, kept below as the reference: on seeded random data (several pages and
// users, users active before and after deploys, an ignored issue, a weight-0 type, confidences
// out of range) every deploy's confusion_after, delta and pages_after must be exactly what the
// old path gives, on both dialects; and the pure sweep must equal a per-start computation.
// The sweep reads aggregates (per segment between deploys, per user), never the signals
// themselves: the rows its signal reads return do not grow with the number of signals.
import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { eachDialect, useHarness } from './helpers/harness.ts';
import { DEPLOY_SETTLE_MS, DEPLOY_TRACK_MS, refreshDeploysAfter } from '../src/pipeline/cycle.ts';
import { confidenceBySegment } from '../src/pipeline/score-pages.ts';
import {
  calibratedScore, confidenceUnits, overallScore, rawScore, spanScores, weighSignals, type LastFire, type PageLastSeen, type SegmentConfidence,
} from '../src/pipeline/scoring.ts';
import { weightResolver } from '../src/domain/signals.ts';
import { loadSignalWeights } from '../src/domain/site-config.ts';
import type { Database } from '../src/store/tables.ts';
import { prng } from './helpers/fuzzer.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;

/** The fuzzer's seeded generator (mulberry32), so a failure replays. */
const random = (seed: number) => prng(seed).next;

/** The old path, as it was before the sweep: one scan of [from, to) per deploy. */
async function referenceScoreSpan(db: Kysely<Database>, siteId: string, from: number, to: number) {
  const user = sql<string>`coalesce(visitor_id, sid)`;
  const weight = weightResolver(await loadSignalWeights(db, siteId));
  const users = await db.selectFrom('events').select(['page', user.as('u'), (eb) => eb.fn.max('occurred_at').as('last')])
    .where('site_id', '=', siteId).where('occurred_at', '>=', from).where('occurred_at', '<', to).groupBy(['page', user]).execute();
  const ignoredRows = await db.selectFrom('ux_issues').select(['page', 'type', 'element_selector'])
    .where('site_id', '=', siteId).where('status', '=', 'ignored').where('ignored_at', '<', to).execute();
  const ignored = new Set(ignoredRows.map((r) => `${r.page}\u0000${r.type}\u0000${r.element_selector}`));
  const fires = (await db.selectFrom('signals').select(['page', 'signal_type', 'element', 'confidence', 'occurred_at', user.as('u')])
    .where('site_id', '=', siteId).where('occurred_at', '>=', from).where('occurred_at', '<', to).execute())
    .map((r) => ({ page: r.page, element: r.element, type: r.signal_type, user: r.u, confidence: r.confidence, at: r.occurred_at }))
    .filter((f) => !ignored.has(`${f.page}\u0000${f.type}\u0000${f.element}`));
  const active = new Map<string, number>();
  for (const r of users) active.set(r.page, (active.get(r.page) ?? 0) + 1);
  const pages = [...active.entries()].map(([page, activeUsers]) => {
    const pageFires = fires.filter((f) => f.page === page);
    const { total } = weighSignals(pageFires, weight);
    const affected = new Set(pageFires.filter((f) => weight(f.type) > 0).map((f) => f.user)).size;
    return { page, score: calibratedScore(rawScore(total, activeUsers, affected)), active_users: activeUsers };
  }).sort((a, b) => b.score - a.score || b.active_users - a.active_users || a.page.localeCompare(b.page));
  return { overall: overallScore(pages.map((p) => ({ score: p.score, activeUsers: p.active_users }))), pages };
}

const PAGES = ['/', '/cart', '/checkout', '/search', '/account', '/help'];
const TYPES = ['rage_click', 'dead_click', 'form_friction', 'error_click', 'muted_click'];
const ELEMENTS = ['button.pay', 'a.next', 'input#q'];

eachDialect('deploy after-scores from one sweep', (dialect) => {
  const h = useHarness(dialect.name, { raisedLimits: true });

  it('every deploy gets exactly what the old per-deploy scoreSpan gives, over several cycles', async () => {
    const org = await h.org('Sweep');
    const siteId = org.site_id;
    const db = h.store.db;
    const rnd = random(20261126);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)];
    const T = Date.UTC(2026, 10, 26, 12, 0);
    const t0 = T - 50 * HOUR;
    // Traffic stops 8 minutes before T, so the deploy 7 minutes before has an empty window.
    const t1 = T - 8 * MIN;

    // muted_click weighs 0; form_friction a fraction, so sums are not whole numbers.
    await db.insertInto('sdk_configs').values({
      id: randomUUID(), site_id: siteId, environment: 'production', updated_at: T - 60 * HOUR,
      config: JSON.stringify({ signal_weights: { muted_click: 0, form_friction: 7.3 } }),
    }).execute();
    const issue = (status: string, page: string, type: string, element: string, ignoredAt: number | null) => ({
      id: randomUUID(), site_id: siteId, fingerprint: randomUUID(), title: `${type} on ${element}`, page, element_selector: element, element_label: null,
      type, severity: 'low', severity_score: 1, severity_manual: null, status, assigned_to: null, signal_count: 1, session_count: 1, user_count: 1,
      first_seen_at: t0, last_seen_at: t1, resolved_at: null, ignored_at: ignoredAt, status_changed_at: t0, created_at: t0, updated_at: t0,
      ticket_provider: null, ticket_id: null, ticket_url: null,
    });
    await db.insertInto('ux_issues').values([
      // Ignored before every cycle: its signals never count.
      issue('ignored', '/cart', 'rage_click', 'button.pay', T - 60 * HOUR),
      // Ignored after the first cycle: counted in that cycle, left out of the later ones.
      issue('ignored', '/', 'rage_click', 'a.next', T + 30 * MIN),
      issue('open', '/checkout', 'rage_click', 'button.pay', null),
    ]).execute();

    // 40 users (a third without visitor_id, counted by sid), each on a few pages at random times,
    // so some are active only before a deploy, some only after, some both.
    const events: Database['events'][] = [];
    const signals: Database['signals'][] = [];
    for (let u = 0; u < 40; u++) {
      const sid = `sid-${u}`;
      const visitor = u % 3 === 0 ? null : `visitor-${u}`;
      const visits = 5 + Math.floor(rnd() * 40);
      for (let v = 0; v < visits; v++) {
        const at = t0 + Math.floor(rnd() * (t1 - t0));
        const page = pick(PAGES);
        const id = randomUUID();
        events.push({
          id, site_id: siteId, sid, visitor_id: visitor, type: 'pageview', page, occurred_at: at, client_ts: at, received_at: at,
          dedupe_key: `k-${id}`, label: null, props: null, referrer_page: null, environment: 'production', name: null, signal_type: null, element: null,
        } as unknown as Database['events']);
        if (rnd() < 0.45) {
          const fireAt = at + Math.floor(rnd() * 10_000);
          // Mostly in [0, 1] at full precision; a few out of range, clamped by scoring.
          const confidence = rnd() < 0.1 ? pick([1.4, -0.3, 1]) : rnd();
          signals.push({
            id: randomUUID(), site_id: siteId, event_id: id, sid, visitor_id: visitor, signal_type: pick(TYPES), page: rnd() < 0.05 ? '/no-pageviews' : page,
            element: pick(ELEMENTS), label: null, confidence, occurred_at: Math.min(fireAt, t1 - 1), rx: null, ry: null, vx: null, vy: null, environment: 'production',
          } as unknown as Database['signals']);
        }
      }
    }
    // A user whose only visit to /help, with a rage click, is at the very millisecond of a deploy:
    // the deploy's window counts both (its start is inclusive).
    const edge = T - 3 * HOUR - 12_345;
    const edgeEvent = { ...events[0], id: randomUUID(), sid: 'sid-edge', visitor_id: 'visitor-edge', page: '/help', occurred_at: edge, client_ts: edge, received_at: edge, dedupe_key: 'k-edge' };
    events.push(edgeEvent);
    signals.push({ ...signals[0], id: randomUUID(), event_id: edgeEvent.id, sid: 'sid-edge', visitor_id: 'visitor-edge', signal_type: 'rage_click', page: '/help', element: 'a.next', confidence: 0.8, occurred_at: edge });
    for (let i = 0; i < events.length; i += 200) await db.insertInto('events').values(events.slice(i, i + 200) as never).execute();
    for (let i = 0; i < signals.length; i += 200) await db.insertInto('signals').values(signals.slice(i, i + 200) as never).execute();

    // Deploys: random ones within the tracked range, two at the same moment, one with no
    // traffic after it yet, one too old and one too new to be tracked, one at the edge user's visit.
    const times = [
      ...Array.from({ length: 9 }, () => T - DEPLOY_SETTLE_MS - Math.floor(rnd() * (DEPLOY_TRACK_MS - DEPLOY_SETTLE_MS))),
      T - 20 * HOUR, T - 20 * HOUR, T - 7 * MIN, T - DEPLOY_TRACK_MS - HOUR, T - MIN, edge,
    ];
    const deploys = times.map((deployedAt, i) => ({
      id: randomUUID(), site_id: siteId, version: `v${i}`, environment: 'production', deployed_at: deployedAt, commit_sha: null, author: null,
      pr_number: null, provider: null, url: null, description: null, confusion_before: Math.round(rnd() * 400) / 10, confusion_after: null,
      delta: null, pages_before: '[]', pages_after: null, after_computed_at: null, created_at: deployedAt, score_scale: 'calibrated' as const,
    }));
    await db.insertInto('deploys').values(deploys).execute();

    const stored = async () => (await db.selectFrom('deploys').select(['id', 'version', 'deployed_at', 'confusion_before', 'confusion_after', 'delta', 'pages_after', 'after_computed_at'])
      .where('site_id', '=', siteId).orderBy('version').execute());
    let counted = 0;
    const afterValues = new Set<number>();
    for (const cycleAt of [T, T + HOUR, T + 2 * HOUR]) {
      // What the old path writes, deploy by deploy, from the rows before this cycle.
      const expected = [];
      for (const row of await stored()) {
        const tracked = row.deployed_at <= cycleAt - DEPLOY_SETTLE_MS && row.deployed_at >= cycleAt - DEPLOY_TRACK_MS;
        const after = tracked ? await referenceScoreSpan(db, siteId, row.deployed_at, cycleAt) : null;
        if (!after || after.pages.length === 0) {
          expected.push(row);
          continue;
        }
        expected.push({
          ...row, confusion_after: after.overall, delta: Math.round((after.overall - row.confusion_before) * 10) / 10,
          pages_after: JSON.stringify(after.pages), after_computed_at: cycleAt,
        });
        counted++;
        afterValues.add(after.overall);
      }
      const updated = await refreshDeploysAfter(db, siteId, cycleAt);
      expect(await stored(), `cycle at ${new Date(cycleAt).toISOString()}`).toEqual(expected);
      expect(updated).toBe(expected.filter((r) => r.after_computed_at === cycleAt).length);
    }
    // The data is not trivial: most deploys are scored, with different after-scores, and the
    // one with no traffic after it, the too old and the too new one stay null.
    expect(counted).toBeGreaterThanOrEqual(3 * 12);
    expect(afterValues.size).toBeGreaterThan(5);
    const final = await stored();
    for (const version of ['v11', 'v12', 'v13']) expect(final.find((r) => r.version === version)).toMatchObject({ confusion_after: null, pages_after: null });
  });

  it('sums clamped confidences exactly in the database, as confidenceUnits does one by one', async () => {
    const org = await h.org('Units');
    const siteId = org.site_id;
    const T = Date.UTC(2026, 10, 26, 12, 0);
    // Values whose sums as doubles depend on the order (0.1, 0.2, 0.3), the extremes, out of range, tiny and subnormal.
    const values = [1, 0, 0.1, 0.2, 0.3, 0.6, 1 / 3, 2 ** -26, 2 ** -30, 1 - 2 ** -53, 1.4, -0.3, Number.MIN_VALUE, ...(dialect.name === 'postgres' ? [Number.NaN] : [])];
    // One element per value alone, and every value again on one element, in two segments.
    const rows = [
      ...values.map((confidence, i) => ({ element: `e${i}`, confidence, at: T - 30 * MIN })),
      ...values.map((confidence, i) => ({ element: 'all', confidence, at: T - (i % 2 ? 30 : 90) * MIN })),
    ];
    await h.store.db.insertInto('signals').values(rows.map((r) => ({
      id: randomUUID(), site_id: siteId, event_id: randomUUID(), sid: 'sid-1', visitor_id: null, signal_type: 'rage_click', page: '/',
      element: r.element, label: null, confidence: r.confidence, occurred_at: r.at, rx: null, ry: null, vx: null, vy: null, environment: 'production',
    }))).execute();
    const got = await confidenceBySegment(h.store.db, siteId, [T - HOUR, T - 2 * HOUR], T);
    const want = new Map<string, bigint>();
    for (const r of rows) {
      const key = `${r.element} ${r.at >= T - HOUR ? T - HOUR : T - 2 * HOUR}`;
      want.set(key, (want.get(key) ?? 0n) + confidenceUnits(r.confidence));
    }
    expect(new Map(got.map((r) => [`${r.element} ${r.start}`, r.units]))).toEqual(want);
    // NaN counts as 1, as clampConfidence says (only PostgreSQL stores it).
    if (dialect.name === 'postgres') expect(got.find((r) => r.element === `e${values.length - 1}`)?.units).toBe(confidenceUnits(1));
  });

  it('reads aggregates, not signals: the rows its signal reads return do not grow with the signals', async () => {
    const T = Date.UTC(2026, 10, 26, 12, 0);
    const deployTimes = [T - 4 * HOUR, T - 2 * HOUR, T - HOUR];
    /** One user with n rage clicks on one element, spread over the three deploys' segments: rows the signal reads return. */
    const signalRows = async (n: number) => {
      const org = await h.org(`Rows ${n}`);
      const siteId = org.site_id;
      const db = h.store.db;
      const at = T - 30 * MIN;
      await db.insertInto('events').values({
        id: randomUUID(), site_id: siteId, sid: 'sid-1', visitor_id: 'visitor-1', type: 'pageview', page: '/', occurred_at: at, client_ts: at, received_at: at,
        dedupe_key: `k-rows-${n}`, label: null, props: null, referrer_page: null, environment: 'production', name: null, signal_type: null, element: null,
      } as never).execute();
      const signals = Array.from({ length: n }, (_, i) => ({
        id: randomUUID(), site_id: siteId, event_id: randomUUID(), sid: 'sid-1', visitor_id: 'visitor-1', signal_type: 'rage_click', page: '/',
        element: 'button.pay', label: null, confidence: 0.5, occurred_at: T - 4 * HOUR + Math.floor((i * (4 * HOUR - 10 * MIN)) / n),
        rx: null, ry: null, vx: null, vy: null, environment: 'production',
      }));
      for (let i = 0; i < signals.length; i += 200) await db.insertInto('signals').values(signals.slice(i, i + 200) as never).execute();
      await db.insertInto('deploys').values(deployTimes.map((deployedAt, i) => ({
        id: randomUUID(), site_id: siteId, version: `v${i}`, environment: 'production', deployed_at: deployedAt, commit_sha: null, author: null,
        pr_number: null, provider: null, url: null, description: null, confusion_before: 0, confusion_after: null,
        delta: null, pages_before: '[]', pages_after: null, after_computed_at: null, created_at: deployedAt, score_scale: 'calibrated' as const,
      }))).execute();
      // Rows returned by every select whose FROM names signals (directly or through a subquery).
      const signalQueries = new Set<unknown>();
      let rows = 0;
      const counting = db.withPlugin({
        transformQuery: ({ node, queryId }) => {
          if (node.kind === 'SelectQueryNode' && JSON.stringify(node.from ?? {}).includes('"name":"signals"')) signalQueries.add(queryId);
          return node;
        },
        transformResult: async ({ result, queryId }) => {
          if (signalQueries.has(queryId)) rows += result.rows.length;
          return result;
        },
      });
      expect(await refreshDeploysAfter(counting, siteId, T)).toBe(3);
      // The scores still count every signal: the oldest deploy's window holds all n at 0.5 x 25 over one
      // user, who is affected (x 2.5).
      const oldest = await db.selectFrom('deploys').select('confusion_after').where('site_id', '=', siteId).where('version', '=', 'v0').executeTakeFirstOrThrow();
      expect(oldest.confusion_after).toBe(calibratedScore(n * 0.5 * 25 * 2.5));
      return rows;
    };
    // 3 segment sums and 1 user's latest signal, for 9 signals as for 600.
    expect(await signalRows(9)).toBe(4);
    expect(await signalRows(600)).toBe(4);
  });
});

describe('spanScores (pure)', () => {
  it('equals a per-start score over the raw fires at or after the start, on 200 random cases', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const rnd = random(seed);
      const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)];
      const weight = weightResolver({ muted_click: 0, form_friction: 0.7 + rnd() });
      const users = Array.from({ length: 1 + Math.floor(rnd() * 30) }, (_, i) => `u${i}`);
      const lastSeen = new Map<string, PageLastSeen>();
      for (let i = 0; i < 80; i++) {
        const row = { page: pick(PAGES), user: pick(users), last: Math.floor(rnd() * 1000) };
        const key = `${row.page} ${row.user}`;
        if ((lastSeen.get(key)?.last ?? -1) < row.last) lastSeen.set(key, row);
      }
      const fires = Array.from({ length: Math.floor(rnd() * 120) }, () => ({
        page: pick(PAGES), type: pick(TYPES), element: pick(ELEMENTS), user: pick(users), confidence: rnd() < 0.1 ? pick([1.5, -0.2]) : rnd(), at: Math.floor(rnd() * 1000),
      }));
      const starts = Array.from({ length: 1 + Math.floor(rnd() * 12) }, () => Math.floor(rnd() * 1000));
      starts.push(starts[0]);
      // Some fires at the very millisecond of a start: they belong to that start's segment.
      for (const start of starts.slice(0, 3)) fires.push({ ...fires[0] ?? { page: '/', type: 'rage_click', element: 'a.next', user: 'u0', confidence: 0.5 }, at: start });

      // The aggregates the database computes, here from the raw fires: per (page, type, element)
      // and segment (the greatest start at or before the fire) the summed confidence units; per
      // (page, type, element, user) the latest fire. Fires before the earliest start are outside the span.
      const oldest = Math.min(...starts);
      const confidence = new Map<string, SegmentConfidence & { element: string }>();
      const lastFires = new Map<string, LastFire & { element: string }>();
      for (const f of fires.filter((x) => x.at >= oldest)) {
        const start = Math.max(...starts.filter((s) => s <= f.at));
        const key = `${f.page} ${f.type} ${f.element} ${start}`;
        const row = confidence.get(key) ?? { page: f.page, type: f.type, element: f.element, start, units: 0n };
        confidence.set(key, { ...row, units: row.units + confidenceUnits(f.confidence) });
        const userKey = `${f.page} ${f.type} ${f.element} ${f.user}`;
        if ((lastFires.get(userKey)?.last ?? -1) < f.at) lastFires.set(userKey, { page: f.page, type: f.type, element: f.element, user: f.user, last: f.at });
      }
      const got = spanScores({ lastSeen: [...lastSeen.values()], confidence: [...confidence.values()], lastFires: [...lastFires.values()], weight, starts });

      // Independently, per start, from the raw fires, as the old per-deploy path scored a window.
      // weighSignals sums doubles where the sweep sums exactly; on these random confidences no sum
      // sits on a rounding boundary, so the scores are equal.
      for (const start of starts) {
        const active = new Map<string, number>();
        for (const r of lastSeen.values()) if (r.last >= start) active.set(r.page, (active.get(r.page) ?? 0) + 1);
        const pages = [...active.entries()].map(([page, activeUsers]) => {
          const pageFires = fires.filter((f) => f.page === page && f.at >= start);
          const affected = new Set(pageFires.filter((f) => weight(f.type) > 0).map((f) => f.user)).size;
          return { page, score: calibratedScore(rawScore(weighSignals(pageFires, weight).total, activeUsers, affected)), active_users: activeUsers };
        }).sort((a, b) => b.score - a.score || b.active_users - a.active_users || a.page.localeCompare(b.page));
        const want = { overall: overallScore(pages.map((p) => ({ score: p.score, activeUsers: p.active_users }))), pages };
        expect(got.get(start), `seed ${seed}, start ${start}`).toEqual(want);
      }
    }
  });
});
