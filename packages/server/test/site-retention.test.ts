// Per-site retention (issue 33, item 12): an admin sets a site's retention_days within the
// instance's MALLARD_RETENTION_DAYS, and the retention job deletes each site's raw data by its
// own period (the instance's when unset, and never longer). Both dialects.
import { expect, it } from 'vitest';
import { purgeExpiredRawData } from '../src/jobs/retention.ts';
import { bearer, eachDialect, useHarness, type Org } from './helpers/harness.ts';

const DAY = 24 * 60 * 60 * 1000;
const AGES = [1, 6, 8, 30, 91]; // days

eachDialect('per-site retention', ({ name, skip }) => {
  // The instance keeps 90 days (the harness's config.retentionDays).
  const h = useHarness(name);

  const patch = (org: Org, body: unknown, token = org.jwt) =>
    h.app.inject({ method: 'PATCH', url: `/v1/manage/site/${org.site_id}`, headers: bearer(token), payload: body as object });

  it.skipIf(skip)('an admin sets retention_days within the instance\'s maximum; above it, zero or from a member is refused; null resets', async () => {
    const org = await h.org('Retention setting');
    const listed = await h.app.inject({ method: 'GET', url: '/v1/manage/sites', headers: bearer(org.jwt) });
    expect(listed.json().data.sites[0]).toMatchObject({ retention_days: null, effective_retention_days: 90, max_retention_days: 90 });

    const set = await patch(org, { retention_days: 7 });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json().data).toMatchObject({ id: org.site_id, retention_days: 7, effective_retention_days: 7, max_retention_days: 90 });
    const again = await h.app.inject({ method: 'GET', url: '/v1/manage/sites', headers: bearer(org.jwt) });
    expect(again.json().data.sites[0].retention_days).toBe(7);

    const above = await patch(org, { retention_days: 91 });
    expect(above.statusCode).toBe(400);
    expect(above.json().error).toMatchObject({ code: 'invalid_input', details: { field: 'retention_days' } });
    expect((await patch(org, { retention_days: 0 })).statusCode).toBe(400);
    expect((await patch(org, { retention_days: 1.5 })).statusCode).toBe(400);
    const member = (await h.user(org, 'member')).jwt;
    expect((await patch(org, { retention_days: 30 }, member)).json().error.code).toBe('insufficient_role');
    const stored = await h.store.db.selectFrom('sites').select('retention_days').where('id', '=', org.site_id).executeTakeFirstOrThrow();
    expect(stored.retention_days).toBe(7);

    const reset = await patch(org, { retention_days: null });
    expect(reset.json().data).toMatchObject({ retention_days: null, effective_retention_days: 90 });
  });

  async function plant(siteId: string) {
    const now = h.clock.now();
    for (const [i, age] of AGES.entries()) {
      const at = now - age * DAY;
      const sid = `${siteId.slice(-4)}${String(i).padStart(28, '0')}`;
      await h.store.db.insertInto('sessions').values({
        id: `${siteId.slice(0, 30)}s${i}`, site_id: siteId, sid, visitor_id: null, user_ref: null, environment: 'production',
        first_seen_at: at, last_seen_at: at, entry_page: '/', exit_page: '/', pages: '["/"]', page_count: 1, event_count: 1,
        signal_count: 1, signal_counts: '{}', device_type: null, browser: null, os: null, viewport_bucket: null,
        app_version: null, referrer_host: null, converted: 0,
      }).execute();
      await h.store.db.insertInto('events').values({
        id: `${siteId.slice(0, 30)}e${i}`, site_id: siteId, sid, visitor_id: null, type: 'signal', page: '/', occurred_at: at,
        client_ts: at, received_at: at, dedupe_key: `${i}`, name: null, signal_type: 'rage_click',
        element: null, label: null, props: null, referrer_page: null, environment: 'production',
      }).execute();
      await h.store.db.insertInto('signals').values({
        id: `${siteId.slice(0, 30)}g${i}`, site_id: siteId, event_id: `${siteId.slice(0, 30)}e${i}`, sid, visitor_id: null,
        signal_type: 'rage_click', page: '/', element: 'b', label: null, confidence: 1, occurred_at: at,
        rx: null, ry: null, vx: null, vy: null, environment: 'production',
      }).execute();
    }
    const issueId = `${siteId.slice(0, 30)}is`;
    await h.store.db.insertInto('ux_issues').values({
      id: issueId, site_id: siteId, fingerprint: 'f', title: 'Issue', page: '/', element_selector: 'b', element_label: null,
      type: 'rage_click', severity: 'low', severity_score: 1, severity_manual: null, status: 'open', assigned_to: null,
      signal_count: 5, session_count: 5, user_count: 5, first_seen_at: now - 91 * DAY, last_seen_at: now - DAY, resolved_at: null,
      ignored_at: null, status_changed_at: now, created_at: now, updated_at: now, ticket_provider: null, ticket_id: null, ticket_url: null,
    }).execute();
    for (const [i, age] of AGES.entries()) {
      await h.store.db.insertInto('issue_evidence').values({ id: `${issueId}${i}`, issue_id: issueId, signal_id: `sig${i}`, sid: `${i}`.repeat(32), occurred_at: now - age * DAY }).execute();
    }
  }

  const agesLeft = async (siteId: string) => {
    const now = h.clock.now();
    const days = (rows: { at: number }[]) => rows.map((r) => Math.round((now - r.at) / DAY)).sort((x, y) => x - y);
    return {
      events: days(await h.store.db.selectFrom('events').select('occurred_at as at').where('site_id', '=', siteId).execute()),
      signals: days(await h.store.db.selectFrom('signals').select('occurred_at as at').where('site_id', '=', siteId).execute()),
      sessions: days(await h.store.db.selectFrom('sessions').select('last_seen_at as at').where('site_id', '=', siteId).execute()),
      evidence: days(await h.store.db.selectFrom('issue_evidence').select('occurred_at as at')
        .where('issue_id', 'in', h.store.db.selectFrom('ux_issues').select('id').where('site_id', '=', siteId)).execute()),
    };
  };

  it.skipIf(skip)('the retention job deletes each site\'s raw data by its own period, the instance\'s when unset, never longer', async () => {
    const short = await h.org('Keeps a week');
    const plain = await h.org('Keeps the default');
    const long = await h.org('Asked for more');
    expect((await patch(short, { retention_days: 7 })).statusCode).toBe(200);
    // Set when the instance allowed more; MALLARD_RETENTION_DAYS lowered since: the instance's wins.
    await h.store.db.updateTable('sites').set({ retention_days: 365 }).where('id', '=', long.site_id).execute();
    for (const org of [short, plain, long]) await plant(org.site_id);

    await purgeExpiredRawData(h.store, h.clock.now(), 90, 2);
    const week = [1, 6];
    expect(await agesLeft(short.site_id)).toEqual({ events: week, signals: week, sessions: week, evidence: week });
    const instance = [1, 6, 8, 30];
    expect(await agesLeft(plain.site_id)).toEqual({ events: instance, signals: instance, sessions: instance, evidence: instance });
    expect(await agesLeft(long.site_id)).toEqual({ events: instance, signals: instance, sessions: instance, evidence: instance });
  });
});
