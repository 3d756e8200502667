// The clip reads on both dialects (GET /v1/query/clips with each filter and pages, one clip with
// its events, the latest page snapshot, another tenant seeing nothing), sessions search's
// has_clips, the site's clip settings and totals, and the lifecycle: erasure, site purge and
// retention remove clips and snapshots, the data-subject export lists them, row counts count them.
import { beforeAll, expect, it } from 'vitest';
import { purgeDeletedSites } from '../src/jobs/purge-sites.ts';
import { purgeExpiredRawData } from '../src/jobs/retention.ts';
import { DAY_MS } from '../src/domain/time.ts';
import { rowCount } from '../src/store/row-counts.ts';
import { bearer, eachDialect, useHarness, type Harness, type Org } from './helpers/harness.ts';
import { clipBody, clipCount, IPHONE_UA, rrwebEvents, seedSession, snapshotBody, upload, type SeededSession } from './helpers/clip-kit.ts';
import { cycle } from './helpers/traffic.ts';

async function get(h: Harness, token: string, url: string) {
  return h.app.inject({ method: 'GET', url, headers: bearer(token) });
}
async function getOk(h: Harness, token: string, url: string) {
  const res = await get(h, token, url);
  expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
  return res.json().data;
}

eachDialect('clip reads', ({ name }) => {
  const h = useHarness(name, { raisedLimits: true });
  let org: Org;
  let other: Org;
  let rage: SeededSession[];
  let dead: SeededSession;
  const clips: Record<string, { clip_id: string; started_at: number }> = {};

  beforeAll(async () => {
    org = await h.org('Clip reads');
    other = await h.org('Clip reads other');
    // Three people rage-click the pay button (an issue), one meets a dead link elsewhere.
    rage = [];
    for (let i = 0; i < 3; i++) rage.push(await seedSession(h, org, [{}, {}, {}]));
    dead = await seedSession(h, org, [{ type: 'dead_click', element: 'a.terms', page: '/cart' }], { page: '/cart' });
    await cycle(h, org.site_id, h.clock.now());
    for (const [i, s] of rage.entries()) {
      const body = clipBody(h, org, s, { started_at: h.clock.now() - 60_000 + i * 1000, ended_at: h.clock.now() - 50_000 + i * 1000, signal_ids: s.signalIds.slice(0, 2) });
      clips[`rage${i}`] = { clip_id: (await upload(h, body)).clip_id!, started_at: body.started_at };
    }
    const mobile = clipBody(h, org, dead, { page: '/cart', meta: { ua: IPHONE_UA }, started_at: h.clock.now() - 30_000, ended_at: h.clock.now() - 20_000 });
    clips.dead = { clip_id: (await upload(h, mobile)).clip_id!, started_at: mobile.started_at };
    await upload(h, snapshotBody(h, org, rage[0]));
  });

  it('lists a site\'s clips newest first with their fields, and a page at a time', async () => {
    const all = await getOk(h, org.keys.secret, '/v1/query/clips');
    expect(all.total).toBe(4);
    expect(all.clips.map((c: { id: string }) => c.id)).toEqual([clips.dead.clip_id, clips.rage2.clip_id, clips.rage1.clip_id, clips.rage0.clip_id]);
    expect(all.clips[1]).toEqual({
      id: clips.rage2.clip_id, session_id: rage[2].sid, page: '/checkout', device: 'desktop', signal_ids: rage[2].signalIds.slice(0, 2),
      signal_types: ['rage_click', 'rage_click'], started_at: new Date(clips.rage2.started_at).toISOString(), ended_at: expect.any(String), bytes: expect.any(Number),
    });
    const page = await getOk(h, org.keys.secret, '/v1/query/clips?limit=2&offset=1');
    expect(page).toMatchObject({ total: 4, offset: 1, limit: 2 });
    expect(page.clips.map((c: { id: string }) => c.id)).toEqual([clips.rage2.clip_id, clips.rage1.clip_id]);
  });

  it('filters by session, page, signal type, device, time and issue', async () => {
    const ids = async (query: string) => (await getOk(h, org.keys.secret, `/v1/query/clips?${query}`)).clips.map((c: { id: string }) => c.id);
    expect(await ids(`session_id=${rage[1].sid.toUpperCase()}`)).toEqual([clips.rage1.clip_id]);
    expect(await ids('page=/cart')).toEqual([clips.dead.clip_id]);
    expect(await ids('signal_type=dead_click')).toEqual([clips.dead.clip_id]);
    expect(await ids('signal_type=form_restart')).toEqual([]);
    expect(await ids('device=mobile')).toEqual([clips.dead.clip_id]);
    expect(await ids('device=desktop')).toHaveLength(3);
    const at = (ms: number) => encodeURIComponent(new Date(ms).toISOString());
    expect(await ids(`from=${at(clips.rage1.started_at)}&to=${at(clips.rage2.started_at + 1)}`)).toEqual([clips.rage2.clip_id, clips.rage1.clip_id]);
    const issues = (await getOk(h, org.keys.secret, '/v1/query/issues')).issues as { id: string; type: string; element_selector: string }[];
    const payIssue = issues.find((i) => i.type === 'rage_click' && i.element_selector === 'button.pay');
    expect(payIssue, 'the pipeline made the rage-click issue').toBeDefined();
    expect((await ids(`issue_id=${payIssue!.id}`)).sort()).toEqual([clips.rage0.clip_id, clips.rage1.clip_id, clips.rage2.clip_id].sort());
  });

  it('refuses bad filters with invalid_input and the field; an unknown session or issue is 404', async () => {
    for (const [query, field] of [['limit=0', 'limit'], ['limit=201', 'limit'], ['device=tv', 'device'], ['session_id=xyz', 'session_id'], ['page=cart', 'page'], ['from=yesterday', 'from']]) {
      const res = await get(h, org.keys.secret, `/v1/query/clips?${query}`);
      expect(res.statusCode, `${query}: ${res.body}`).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'invalid_input', details: expect.objectContaining({ field }) });
    }
    expect((await get(h, org.keys.secret, `/v1/query/clips?session_id=${'f'.repeat(32)}`)).statusCode).toBe(404);
    expect((await get(h, org.keys.secret, '/v1/query/clips?issue_id=01936f4e-8a4c-7b1a-9f3e-5a2b1c0d9e8f')).statusCode).toBe(404);
  });

  it('one clip with its rrweb events, decompressed; a malformed id is invalid_uuid, an unknown one not_found', async () => {
    const clip = await getOk(h, org.keys.mcp, `/v1/query/clips/${clips.rage0.clip_id}`);
    expect(clip).toMatchObject({ id: clips.rage0.clip_id, session_id: rage[0].sid, width: 1280, height: 720 });
    expect(clip.events).toEqual(rrwebEvents(clip.events[0].timestamp));
    const bad = await get(h, org.keys.secret, '/v1/query/clips/not-a-uuid');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe('invalid_uuid');
    const unknown = await get(h, org.keys.secret, '/v1/query/clips/01936f4e-8a4c-7b1a-9f3e-5a2b1c0d9e8f');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.code).toBe('not_found');
  });

  it('the latest snapshot of a page and device class; 404 where none was taken', async () => {
    const snap = await getOk(h, org.keys.secret, '/v1/query/page-snapshot?page=/checkout');
    expect(snap).toMatchObject({ page: '/checkout', device: 'desktop', width: 1280, height: 2400, taken_at: new Date(h.clock.now()).toISOString() });
    expect(snap.snapshot).toMatchObject({ type: 2, data: { node: { type: 0 } } });
    expect((await get(h, org.keys.secret, '/v1/query/page-snapshot?page=/checkout&device=mobile')).statusCode).toBe(404);
    expect((await get(h, org.keys.secret, '/v1/query/page-snapshot?page=/nowhere')).statusCode).toBe(404);
    // The next day's snapshot is the latest.
    h.clock.advance(DAY_MS);
    await upload(h, snapshotBody(h, org, await seedSession(h, org), { height: 3000 }));
    expect((await getOk(h, org.keys.secret, '/v1/query/page-snapshot?page=/checkout&device=desktop')).height).toBe(3000);
  });

  it('another org sees none of them: its lists are empty, A\'s clip ids are 404', async () => {
    expect(await getOk(h, other.keys.secret, '/v1/query/clips')).toMatchObject({ clips: [], total: 0 });
    expect((await get(h, other.keys.secret, `/v1/query/clips/${clips.rage0.clip_id}`)).statusCode).toBe(404);
    expect((await get(h, other.keys.secret, '/v1/query/page-snapshot?page=/checkout')).statusCode).toBe(404);
    expect((await get(h, other.keys.secret, `/v1/query/clips?site_id=${org.site_id}`)).statusCode).toBe(404);
    expect((await get(h, org.keys.publishable, '/v1/query/clips')).statusCode).toBe(403);
  });

  it('sessions search: has_clips=true finds the sessions with clips, false the others; each row counts its clips', async () => {
    const withClips = await getOk(h, org.keys.secret, '/v1/query/sessions?has_clips=true&sort=start&from=' + encodeURIComponent(new Date(h.clock.now() - 3 * DAY_MS).toISOString()));
    expect(withClips.sessions.map((s: { session_id: string }) => s.session_id).sort()).toEqual([...rage.map((s) => s.sid), dead.sid].sort());
    expect(withClips.sessions.every((s: { clips: number }) => s.clips === 1)).toBe(true);
    const without = await getOk(h, org.keys.secret, '/v1/query/sessions?has_clips=false&from=' + encodeURIComponent(new Date(h.clock.now() - 3 * DAY_MS).toISOString()));
    expect(without.total).toBeGreaterThan(0);
    for (const s of without.sessions) {
      expect([...rage.map((r) => r.sid), dead.sid]).not.toContain(s.session_id);
      expect(s.clips).toBe(0);
    }
  });

  it('the site\'s clip settings and totals, readable by viewers, changed by admins', async () => {
    // Tokens made now: the clock moved a day since the orgs' own were signed.
    const viewer = await h.user(org, 'viewer');
    const admin = (await h.user(org, 'admin')).jwt;
    const stranger = (await h.user(other, 'owner')).jwt;
    const usage = await getOk(h, viewer.jwt, `/v1/manage/site/${org.site_id}/clips`);
    expect(usage).toMatchObject({
      site_id: org.site_id, clip_retention_days: 30, effective_clip_retention_days: 30, clip_daily_bytes: 50 * 1024 * 1024,
      clips: 4, snapshots: 2, accepting: true,
    });
    const stored = await h.store.db.selectFrom('clips').select('bytes').where('site_id', '=', org.site_id).execute();
    expect(usage.bytes).toBe(stored.reduce((s, r) => s + Number(r.bytes), 0));
    expect(usage.today_bytes).toBeGreaterThan(0);
    expect(usage.today_bytes).toBeLessThan(usage.bytes);
    const patch = (token: string, payload: unknown) => h.app.inject({ method: 'PATCH', url: `/v1/manage/site/${org.site_id}`, headers: bearer(token), payload: payload as object });
    expect((await patch(viewer.jwt, { clip_retention_days: 7 })).statusCode).toBe(403);
    const changed = await patch(admin, { clip_retention_days: 7, clip_daily_bytes: 100 });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json().data).toMatchObject({ clip_retention_days: 7, clip_daily_bytes: 100 });
    for (const [payload, field] of [[{ clip_retention_days: 0 }, 'clip_retention_days'], [{ clip_daily_bytes: -1 }, 'clip_daily_bytes'], [{ clip_retention_days: 366 }, 'clip_retention_days']] as const) {
      const res = await patch(admin, payload);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json().error.details.field).toBe(field);
    }
    expect(await getOk(h, viewer.jwt, `/v1/manage/site/${org.site_id}/clips`)).toMatchObject({ clip_retention_days: 7, effective_clip_retention_days: 7, clip_daily_bytes: 100, accepting: false });
    await patch(admin, { clip_retention_days: 30, clip_daily_bytes: 50 * 1024 * 1024 });
    expect((await get(h, stranger, `/v1/manage/site/${org.site_id}/clips`)).statusCode).toBe(404);
  });

  it('row counts include clips and snapshots', async () => {
    expect(await rowCount(h.store.db, org.site_id, 'clips')).toBe(await clipCount(h, org.site_id));
    expect(await clipCount(h, org.site_id)).toBe(6);
  });
});

eachDialect('clip lifecycle', ({ name }) => {
  const h = useHarness(name, { raisedLimits: true });

  async function siteWithClips(label: string) {
    const org = await h.org(label);
    const ana = await seedSession(h, org);
    const bo = await seedSession(h, org);
    await upload(h, clipBody(h, org, ana));
    await upload(h, snapshotBody(h, org, ana));
    await upload(h, clipBody(h, org, bo));
    return { org, ana, bo };
  }

  it('the export lists a person\'s clips and snapshots (their metadata, not the recording); the erasure removes them, and only theirs', async () => {
    const { org, ana, bo } = await siteWithClips('Clip privacy');
    const exported = await h.app.inject({ method: 'GET', url: `/v1/manage/privacy/export?site_id=${org.site_id}&visitor_id=${ana.vid}`, headers: bearer(org.jwt) });
    expect(exported.statusCode, exported.body).toBe(200);
    const data = exported.json().data;
    expect(data.clips).toHaveLength(2);
    expect(data.clips.map((c: { kind: string }) => c.kind).sort()).toEqual(['clip', 'snapshot']);
    for (const clip of data.clips) {
      expect(clip).toMatchObject({ sid: ana.sid, visitor_id: ana.vid, page: '/checkout', device: 'desktop', created_at: expect.stringMatching(/Z$/) });
      expect(clip).not.toHaveProperty('body');
    }
    expect(data.clips.find((c: { kind: string }) => c.kind === 'clip').signal_ids).toEqual(ana.signalIds);
    const erased = await h.app.inject({ method: 'DELETE', url: `/v1/manage/privacy/subject?site_id=${org.site_id}&visitor_id=${ana.vid}`, headers: bearer(org.jwt) });
    expect(erased.statusCode, erased.body).toBe(200);
    expect(erased.json().data.erased).toMatchObject({ sessions: 1, clips: 2 });
    const left = await h.store.db.selectFrom('clips').select('sid').where('site_id', '=', org.site_id).execute();
    expect(left.map((r) => r.sid)).toEqual([bo.sid]);
    const signalRows = await h.store.db.selectFrom('clip_signals').select('event_id').where('site_id', '=', org.site_id).execute();
    expect(signalRows.map((r) => r.event_id)).toEqual(bo.signalIds);
    expect(await rowCount(h.store.db, org.site_id, 'clips')).toBe(1);
  });

  it('a site purge removes its clips, snapshots and their signal rows, and no other site\'s', async () => {
    const { org } = await siteWithClips('Clip purge');
    const kept = await siteWithClips('Clip kept');
    const res = await h.app.inject({ method: 'DELETE', url: `/v1/manage/site/${org.site_id}`, headers: bearer(org.jwt) });
    expect(res.statusCode, res.body).toBe(200);
    await purgeDeletedSites(h.store);
    expect(await clipCount(h, org.site_id)).toBe(0);
    const orphans = await h.store.db.selectFrom('clip_signals').select('clip_id').where('site_id', '=', org.site_id).execute();
    expect(orphans).toEqual([]);
    expect(await clipCount(h, kept.org.site_id)).toBe(3);
  });

  it('retention removes clips and snapshots older than the site\'s clip retention, never later than its raw data', async () => {
    const { org } = await siteWithClips('Clip retention');
    const short = await siteWithClips('Clip retention short');
    await h.app.inject({ method: 'PATCH', url: `/v1/manage/site/${short.org.site_id}`, headers: bearer(short.org.jwt), payload: { clip_retention_days: 60, retention_days: 10 } });
    const start = h.clock.now();
    await purgeExpiredRawData(h.store, start + 29 * DAY_MS, 90, 2);
    expect(await clipCount(h, org.site_id)).toBe(3);
    // The raw data's 10 days bound the short site's 60.
    expect(await clipCount(h, short.org.site_id)).toBe(0);
    await purgeExpiredRawData(h.store, start + 30 * DAY_MS + 1, 90, 2);
    expect(await clipCount(h, org.site_id)).toBe(0);
    expect(await rowCount(h.store.db, org.site_id, 'clips')).toBe(0);
    const orphans = await h.store.db.selectFrom('clip_signals').select('clip_id').where('site_id', 'in', [org.site_id, short.org.site_id]).execute();
    expect(orphans).toEqual([]);
  });
});
