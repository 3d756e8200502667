// Retention: raw data older than the period goes, in bounded batches; everything newer and
// every derived table stays.
import { expect, it } from 'vitest';
import { purgeExpiredRawData } from '../src/jobs/retention.ts';
import { eachDialect, useHarness } from './helpers/harness.ts';

const DAY = 24 * 60 * 60 * 1000;

eachDialect('retention', ({ name, skip }) => {
  const h = useHarness(name);

  it.skipIf(skip)('deletes issue evidence (which names sessions) past the period with the raw data; the issue stays', async () => {
    const org = await h.org('RetEvidence');
    const now = h.clock.now();
    const issueId = `${org.site_id.slice(0, 30)}is`;
    await h.store.db.insertInto('ux_issues').values({
      id: issueId, site_id: org.site_id, fingerprint: 'f', title: 'Old issue', page: '/', element_selector: 'b', element_label: null,
      type: 'rage_click', severity: 'low', severity_score: 1, severity_manual: null, status: 'open', assigned_to: null,
      signal_count: 3, session_count: 2, user_count: 2, first_seen_at: now - 200 * DAY, last_seen_at: now - DAY, resolved_at: null,
      ignored_at: null, status_changed_at: now - 200 * DAY, created_at: now - 200 * DAY, updated_at: now - DAY,
      ticket_provider: null, ticket_id: null, ticket_url: null,
    }).execute();
    for (const [i, age] of [1, 89, 91, 200].entries()) {
      await h.store.db.insertInto('issue_evidence').values({ id: `${issueId}${i}`, issue_id: issueId, signal_id: `sig${i}`, sid: `${i}`.repeat(32), occurred_at: now - age * DAY }).execute();
    }
    await purgeExpiredRawData(h.store, now, 90, 1);
    const left = await h.store.db.selectFrom('issue_evidence').select('occurred_at').where('issue_id', '=', issueId).orderBy('occurred_at').execute();
    expect(left.map((e) => Math.round((now - e.occurred_at) / DAY))).toEqual([89, 1]);
    expect(await h.store.db.selectFrom('ux_issues').select('id').where('id', '=', issueId).execute()).toHaveLength(1);
    await h.store.db.deleteFrom('issue_evidence').where('issue_id', '=', issueId).execute();
  });

  it.skipIf(skip)('deletes events, signals and sessions past the period, in batches, and nothing else', async () => {
    const a = await h.org('RetA');
    const b = await h.org('RetB');
    const now = h.clock.now();
    const ages = [1, 30, 89, 91, 120, 400]; // days; the last three are expired at 90 days
    for (const site of [a.site_id, b.site_id]) {
      for (const [i, age] of ages.entries()) {
        const at = now - age * DAY;
        const sid = `${site.slice(-4)}${String(i).padStart(28, '0')}`;
        await h.store.db.insertInto('sessions').values({
          id: `${site.slice(0, 30)}s${i}`, site_id: site, sid, visitor_id: null, user_ref: null, environment: 'production',
          first_seen_at: at, last_seen_at: at, entry_page: '/', exit_page: '/', pages: '["/"]', page_count: 1, event_count: 2,
          signal_count: 1, signal_counts: '{}', device_type: null, browser: null, os: null, viewport_bucket: null,
          app_version: null, referrer_host: null, converted: 0,
        }).execute();
        for (const type of ['pageview', 'signal']) {
          await h.store.db.insertInto('events').values({
            id: `${site.slice(0, 30)}e${i}${type[0]}`, site_id: site, sid, visitor_id: null, type, page: '/', occurred_at: at,
            client_ts: at, received_at: at, dedupe_key: `${i}${type}`, name: null, signal_type: type === 'signal' ? 'rage_click' : null,
            element: null, label: null, props: null, referrer_page: null, environment: 'production',
          }).execute();
        }
        await h.store.db.insertInto('signals').values({
          id: `${site.slice(0, 30)}g${i}`, site_id: site, event_id: `${site.slice(0, 30)}e${i}s`, sid, visitor_id: null,
          signal_type: 'rage_click', page: '/', element: 'b', label: null, confidence: 1, occurred_at: at,
          rx: null, ry: null, vx: null, vy: null, environment: 'production',
        }).execute();
      }
      await h.store.db.insertInto('annotations').values({ id: `${site.slice(0, 30)}an`, site_id: site, page: null, message: 'old', author: null, created_at: now - 400 * DAY }).execute();
    }

    const removed = await purgeExpiredRawData(h.store, now, 90, 2);
    // Per site: 3 expired sessions, 6 expired events, 3 expired signals.
    expect(removed).toBe(2 * (3 + 6 + 3));
    for (const site of [a.site_id, b.site_id]) {
      const events = await h.store.db.selectFrom('events').select('occurred_at').where('site_id', '=', site).execute();
      expect(events).toHaveLength(6);
      expect(events.every((e) => e.occurred_at >= now - 90 * DAY)).toBe(true);
      expect(await h.store.db.selectFrom('signals').select('id').where('site_id', '=', site).execute()).toHaveLength(3);
      expect(await h.store.db.selectFrom('sessions').select('id').where('site_id', '=', site).execute()).toHaveLength(3);
      expect(await h.store.db.selectFrom('annotations').select('id').where('site_id', '=', site).execute()).toHaveLength(1);
    }
    expect(await purgeExpiredRawData(h.store, now, 90, 2)).toBe(0);
  });
});
