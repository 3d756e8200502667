// POST /v1/ingest/clips on both dialects: stored compressed and once; refused with the
// contract's codes (413, invalid_json, invalid_input + field, 404 + field, 403 origin, 429),
// nothing stored on any refusal; bots acknowledged and dropped; each budget answers stored:false
// with its reason and shows in the public SDK config, which also names the device class.
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { decodeEvents } from '../src/features/clips/codec.ts';
import { REFERENCES_RETRY_MS } from '../src/http/routes/clip-ingest.ts';
import { CLIP_STATE_CACHE_MS } from '../src/features/clips/usage.ts';
import { DAY_MS } from '../src/domain/time.ts';
import { bearer, eachDialect, useHarness, type Harness, type Org } from './helpers/harness.ts';
import { clipBody, clipCount, hex16, IPHONE_UA, postClip, rrwebEvents, seedSession, snapshotBody, upload } from './helpers/clip-kit.ts';
import { CHROME_WINDOWS_UA, hex32, postIngest } from './helpers/ingest-kit.ts';

function expectError(res: { statusCode: number; json(): any; body: string }, status: number, code: string, field?: string) {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.json().data).toBeNull();
  expect(res.json().error).toMatchObject({ code, status, ...(field ? { details: expect.objectContaining({ field }) } : {}) });
}

async function enableClips(h: Harness, org: Org, clips: Record<string, unknown> = { enabled: true }) {
  const res = await h.app.inject({ method: 'PATCH', url: `/v1/manage/sdk-config/production?site_id=${org.site_id}`, headers: bearer(org.jwt), payload: { clips } });
  expect(res.statusCode, res.body).toBe(200);
}

async function publicClips(h: Harness, org: Org, ua = CHROME_WINDOWS_UA) {
  const res = await h.app.inject({ method: 'GET', url: `/v1/sdk-config?key=${org.keys.publishable}`, headers: { 'user-agent': ua } });
  expect(res.statusCode, res.body).toBe(200);
  return { clips: res.json().data.clips, headers: res.headers };
}

eachDialect('clip uploads', ({ name }) => {
  const h = useHarness(name, { raisedLimits: true });
  let org: Org;
  beforeAll(async () => { org = await h.org('Clips'); });

  it('stores a clip compressed with its session, visitor, page, device, signals and size', async () => {
    const session = await seedSession(h, org, [{ element: 'button.stored' }]);
    const body = clipBody(h, org, session, { events: Array.from({ length: 40 }, (_, i) => rrwebEvents(h.clock.now() - 10_000 + i)).flat() });
    const data = await upload(h, body);
    expect(data).toMatchObject({ id: body.id, stored: true, clip_id: expect.any(String) });
    const row = await h.store.db.selectFrom('clips').selectAll().where('id', '=', data.clip_id!).executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      site_id: org.site_id, kind: 'clip', sid: session.sid, visitor_id: session.vid, page: '/checkout', device: 'desktop', encoding: 'br',
      started_at: body.started_at, ended_at: body.ended_at, width: 1280, height: 720, event_count: body.events.length,
    });
    expect(JSON.parse(row.signal_ids)).toEqual(session.signalIds);
    expect(JSON.parse(row.signal_types)).toEqual(['rage_click']);
    const json = JSON.stringify(body.events);
    // Compressed: smaller than the JSON, not the JSON itself, and the same events back.
    expect(Number(row.bytes)).toBe(row.body.length);
    expect(row.body.length).toBeLessThan(json.length / 4);
    expect(Buffer.from(row.body).includes(Buffer.from('"timestamp"'))).toBe(false);
    expect(await decodeEvents(row.body, row.encoding)).toEqual(body.events);
    expect(data.bytes).toBe(row.body.length);
    const signals = await h.store.db.selectFrom('clip_signals').selectAll().where('clip_id', '=', row.id).execute();
    expect(signals).toEqual([expect.objectContaining({ event_id: session.signalIds[0], signal_type: 'rage_click', element: 'button.stored', page: '/checkout' })]);
  });

  it('files a clip under its session\'s visitor, whatever visitor id the upload names (the key is public)', async () => {
    const session = await seedSession(h, org, [{ element: 'button.visitor' }]);
    const data = await upload(h, { ...clipBody(h, org, session), vid: 'f'.repeat(32) });
    const row = await h.store.db.selectFrom('clips').select('visitor_id').where('id', '=', data.clip_id!).executeTakeFirstOrThrow();
    expect(row.visitor_id).toBe(session.vid);
  });

  it('takes an uncompressed body as application/json too', async () => {
    const session = await seedSession(h, org);
    const res = await postClip(h, clipBody(h, org, session), { gzip: false, headers: { 'content-type': 'application/json' } });
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json().data.stored).toBe(true);
  });

  it('a retry with the same id stores nothing twice', async () => {
    const session = await seedSession(h, org, [{ element: 'button.retry' }]);
    const body = clipBody(h, org, session);
    const first = await upload(h, body);
    const again = await upload(h, { ...body, id: body.id.toUpperCase() }, false);
    expect(again).toMatchObject({ id: body.id.toUpperCase(), reason: 'duplicate', clip_id: first.clip_id, bytes: first.bytes });
    const rows = await h.store.db.selectFrom('clips').select('id').where('site_id', '=', org.site_id).where('client_id', '=', body.id).execute();
    expect(rows).toHaveLength(1);
  });

  it('refuses bodies over 1 MiB as sent or 8 MiB decompressed with 413 in the envelope, storing nothing', async () => {
    const session = await seedSession(h, org);
    const before = await clipCount(h, org.site_id);
    // Incompressible: over 1 MiB on the wire even gzipped.
    const noise = clipBody(h, org, session, { padding: randomBytes(1200 * 1024).toString('base64') });
    expectError(await postClip(h, noise), 413, 'payload_too_large');
    expectError(await postClip(h, noise, { gzip: false }), 413, 'payload_too_large');
    // Small on the wire, over 8 MiB once decompressed.
    const bomb = clipBody(h, org, session, { padding: ' '.repeat(9 * 1024 * 1024) });
    const wire = gzipSync(JSON.stringify(bomb));
    expect(wire.length).toBeLessThan(1024 * 1024);
    expectError(await postClip(h, wire, { gzip: false, headers: { 'content-encoding': 'gzip' } }), 413, 'payload_too_large');
    expect(await clipCount(h, org.site_id)).toBe(before);
  });

  it('refuses malformed JSON, a bad encoding and bad fields with their codes and field', async () => {
    const session = await seedSession(h, org);
    const before = await clipCount(h, org.site_id);
    expectError(await postClip(h, '{"key": "svc_pub_', { gzip: true }), 400, 'invalid_json');
    expectError(await postClip(h, 'not json', { gzip: false }), 400, 'invalid_json');
    expectError(await postClip(h, JSON.stringify(clipBody(h, org, session)), { gzip: false, headers: { 'content-encoding': 'br' } }), 415, 'unsupported_media_type');
    const now = h.clock.now();
    const cases: [Record<string, unknown>, string][] = [
      [{ kind: 'video' }, 'kind'],
      [{ sid: 'abc' }, 'sid'],
      [{ id: 'xyz' }, 'id'],
      [{ signal_ids: [] }, 'signal_ids'],
      [{ signal_ids: undefined }, 'signal_ids'],
      [{ signal_ids: Array.from({ length: 51 }, hex16) }, 'signal_ids'],
      [{ started_at: now - 30_000 }, 'ended_at'],
      [{ started_at: now, ended_at: now - 1 }, 'ended_at'],
      [{ started_at: now - 8 * DAY_MS, ended_at: now - 8 * DAY_MS + 1000 }, 'started_at'],
      [{ events: [] }, 'events'],
      [{ events: [{ type: 'x', timestamp: 1 }] }, 'events.0.type'],
      [{ page: 'checkout' }, 'page'],
      [{ width: -1 }, 'width'],
    ];
    for (const [change, field] of cases) {
      expectError(await postClip(h, clipBody(h, org, session, change)), 400, 'invalid_input', field);
    }
    expectError(await postClip(h, snapshotBody(h, org, session, { signal_ids: session.signalIds })), 400, 'invalid_input', 'signal_ids');
    expectError(await postClip(h, snapshotBody(h, org, session, { events: rrwebEvents(now).slice(0, 1) })), 400, 'invalid_input', 'events');
    expect(await clipCount(h, org.site_id)).toBe(before);
  });

  it('stores a clip that arrives a moment before the batch with its session and signals (both sent as the page went away)', async () => {
    const session = { sid: hex32(), vid: hex32(), signalIds: [hex16()] };
    const now = h.clock.now();
    const clip = postClip(h, clipBody(h, org, session));
    await new Promise((resolve) => setTimeout(resolve, REFERENCES_RETRY_MS / 5));
    const batch = await postIngest(h, {
      key: org.keys.publishable, sid: session.sid, vid: session.vid, ts: now, meta: { ua: CHROME_WINDOWS_UA },
      events: [{ type: 'signal', ts: now - 100, page: '/checkout', signal_type: 'form_abandonment', element: 'form#address', confidence: 1, id: session.signalIds[0] }],
    });
    expect(batch.statusCode, batch.body).toBe(202);
    const res = await clip;
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json().data).toMatchObject({ stored: true, clip_id: expect.any(String) });
  });

  it('refuses a bad key, and a session or signals the key\'s site does not hold (404 with the field, nothing stored anywhere)', async () => {
    const other = await h.org('Clips other');
    const mine = await seedSession(h, org);
    const theirs = await seedSession(h, other);
    const before = [await clipCount(h, org.site_id), await clipCount(h, other.site_id)];
    expectError(await postClip(h, clipBody(h, org, mine, { key: 'svc_pub_nope' })), 401, 'invalid_key');
    expectError(await postClip(h, clipBody(h, org, mine, { key: undefined })), 401, 'missing_auth');
    // Another site's session, named with this site's key.
    expectError(await postClip(h, clipBody(h, org, theirs)), 404, 'not_found', 'sid');
    // This site's session, naming another site's signal, an unknown one, and another session's.
    expectError(await postClip(h, clipBody(h, org, mine, { signal_ids: theirs.signalIds })), 404, 'not_found', 'signal_ids');
    expectError(await postClip(h, clipBody(h, org, mine, { signal_ids: [...mine.signalIds, hex16()] })), 404, 'not_found', 'signal_ids');
    const sibling = await seedSession(h, org);
    expectError(await postClip(h, clipBody(h, org, mine, { signal_ids: sibling.signalIds })), 404, 'not_found', 'signal_ids');
    expect([await clipCount(h, org.site_id), await clipCount(h, other.site_id)]).toEqual(before);
  });

  it('refuses an origin the site does not allow (403), as ingest does', async () => {
    const site = await h.org('Clips origin');
    const res = await h.app.inject({ method: 'PATCH', url: `/v1/manage/site/${site.site_id}`, headers: bearer(site.jwt), payload: { allowed_origins: ['https://shop.example'] } });
    expect(res.statusCode, res.body).toBe(200);
    const session = await seedSession(h, site);
    expectError(await postClip(h, clipBody(h, site, session), { headers: { origin: 'https://evil.example' } }), 403, 'forbidden');
    expect(await clipCount(h, site.site_id)).toBe(0);
    await upload(h, clipBody(h, site, session), true);
    const allowed = await postClip(h, clipBody(h, site, session), { headers: { origin: 'https://shop.example' } });
    expect(allowed.statusCode, allowed.body).toBe(202);
  });

  it('acknowledges and drops uploads from bots (stored:false, no reason), except in development environments', async () => {
    const session = await seedSession(h, org);
    const before = await clipCount(h, org.site_id);
    const bot = clipBody(h, org, session, { meta: { ua: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)' } });
    const data = await upload(h, bot, false);
    expect(data).toEqual({ id: bot.id, stored: false, bytes: 0 });
    expect(await clipCount(h, org.site_id)).toBe(before);
    const headless = await postClip(h, clipBody(h, org, session, { meta: undefined }), { headers: { 'user-agent': 'Mozilla/5.0 HeadlessChrome/120.0' } });
    expect(headless.json().data.stored).toBe(false);
    expect(await clipCount(h, org.site_id)).toBe(before);
  });

  it('answers the CORS preflight for any origin with the headers uploads need', async () => {
    const res = await h.app.inject({ method: 'OPTIONS', url: '/v1/ingest/clips', headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST' } });
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-headers']).toBe('content-type, authorization, content-encoding');
  });

  describe('budgets', () => {
    it('5 clips per element a UTC day: the 6th is element_cap, listed in full_elements; a new element or day is taken again', async () => {
      const site = await h.org('Clips cap');
      await enableClips(h, site);
      const session = await seedSession(h, site, [{ element: '#place-order' }, { element: 'a.help' }]);
      const [order, help] = session.signalIds;
      for (let i = 0; i < 5; i++) await upload(h, clipBody(h, site, session, { signal_ids: [order] }));
      expect((await publicClips(h, site)).clips.full_elements).toEqual(['#place-order']);
      expect(await upload(h, clipBody(h, site, session, { signal_ids: [order] }), false)).toMatchObject({ reason: 'element_cap' });
      // A clip that also covers an element still wanted is stored.
      await upload(h, clipBody(h, site, session, { signal_ids: [order, help] }));
      expect(await clipCount(h, site.site_id)).toBe(6);
      h.clock.advance(DAY_MS);
      expect((await publicClips(h, site)).clips.full_elements).toEqual([]);
      const later = await seedSession(h, site, [{ element: '#place-order' }]);
      await upload(h, clipBody(h, site, later));
    });

    it('one snapshot per page and device class a day: the second is snapshot_exists, listed in snapshots_taken', async () => {
      const site = await h.org('Clips snap');
      await enableClips(h, site);
      const session = await seedSession(h, site);
      await upload(h, snapshotBody(h, site, session));
      expect((await publicClips(h, site)).clips.snapshots_taken).toEqual(['desktop:/checkout']);
      expect(await upload(h, snapshotBody(h, site, session), false)).toMatchObject({ reason: 'snapshot_exists' });
      // The same page from a phone is another device class; another page is another snapshot.
      await upload(h, snapshotBody(h, site, session, { meta: { ua: IPHONE_UA } }));
      await upload(h, snapshotBody(h, site, session, { page: '/cart' }));
      expect((await publicClips(h, site)).clips.snapshots_taken.sort()).toEqual(['desktop:/cart', 'desktop:/checkout', 'mobile:/checkout']);
      expect(await clipCount(h, site.site_id, 'snapshot')).toBe(3);
    });

    it('the daily byte budget: once spent, uploads are budget and the config stops accepting until the next UTC day', async () => {
      const site = await h.org('Clips bytes');
      await enableClips(h, site);
      const session = await seedSession(h, site);
      const first = await upload(h, clipBody(h, site, session));
      const res = await h.app.inject({ method: 'PATCH', url: `/v1/manage/site/${site.site_id}`, headers: bearer(site.jwt), payload: { clip_daily_bytes: first.bytes + 10 } });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data.clip_daily_bytes).toBe(first.bytes + 10);
      expect((await publicClips(h, site)).clips.accepting).toBe(true);
      expect(await upload(h, clipBody(h, site, session), false)).toMatchObject({ reason: 'budget' });
      expect(await upload(h, snapshotBody(h, site, session), false)).toMatchObject({ reason: 'budget' });
      await h.app.inject({ method: 'PATCH', url: `/v1/manage/site/${site.site_id}`, headers: bearer(site.jwt), payload: { clip_daily_bytes: first.bytes } });
      expect((await publicClips(h, site)).clips.accepting).toBe(false);
      expect(await clipCount(h, site.site_id)).toBe(1);
      h.clock.advance(DAY_MS);
      expect((await publicClips(h, site)).clips.accepting).toBe(true);
      await upload(h, clipBody(h, site, await seedSession(h, site)));
    });
  });

  describe('the public SDK config', () => {
    it('is { enabled: false } until a site turns clips on; then the settings, what the server takes, and the device class', async () => {
      const site = await h.org('Clips config');
      expect((await publicClips(h, site)).clips).toEqual({ enabled: false });
      await enableClips(h, site, { enabled: true, unmask: ['.price', '#total'] });
      const desktop = await publicClips(h, site);
      expect(desktop.clips).toEqual({
        enabled: true, unmask: ['.price', '#total'], allow_media: false, accepting: true, full_elements: [], snapshots_taken: [], device: 'desktop',
      });
      expect(desktop.headers['cache-control']).toBe('public, max-age=60');
      expect(desktop.headers.vary).toMatch(/user-agent/i);
      expect((await publicClips(h, site, IPHONE_UA)).clips.device).toBe('mobile');
      // The uploads of that agent are filed under the class the config named.
      const session = await seedSession(h, site);
      const data = await upload(h, clipBody(h, site, session, { meta: { ua: IPHONE_UA } }));
      const row = await h.store.db.selectFrom('clips').select('device').where('id', '=', data.clip_id!).executeTakeFirstOrThrow();
      expect(row.device).toBe('mobile');
      await enableClips(h, site, { enabled: false });
      expect((await publicClips(h, site)).clips).toEqual({ enabled: false });
    });

    it('reads the clip state once per site for a few seconds; a config change, a stored snapshot and a budget change show at once', async () => {
      const site = await h.org('Clips config cache');
      await enableClips(h, site);
      const session = await seedSession(h, site);
      // The clip state's reads: today's bytes and snapshots (clips), the elements with their clips (clip_signals), the budget (sites).
      const spy = vi.spyOn(h.store.db, 'selectFrom');
      /** The config as a page load gets it, and how many reads of the clip state it made. */
      const configRead = async () => {
        const before = spy.mock.calls.length;
        const { clips } = await publicClips(h, site);
        return { clips, reads: spy.mock.calls.slice(before).filter(([table]) => table === 'clips' || table === 'clip_signals').length };
      };
      try {
        const first = await configRead();
        expect(first).toMatchObject({ clips: { accepting: true }, reads: 3 });
        for (let i = 0; i < 4; i++) expect(await configRead()).toEqual({ ...first, reads: 0 });
        // The config itself is read afresh: a change shows on the next request, the state still cached.
        await enableClips(h, site, { enabled: true, unmask: ['.price'] });
        expect(await configRead()).toMatchObject({ clips: { unmask: ['.price'] }, reads: 0 });
        // A stored snapshot writes a table the state read: the next request reads again and lists it.
        await upload(h, snapshotBody(h, site, session));
        expect(await configRead()).toMatchObject({ clips: { snapshots_taken: ['desktop:/checkout'] }, reads: 3 });
        const res = await h.app.inject({ method: 'PATCH', url: `/v1/manage/site/${site.site_id}`, headers: bearer(site.jwt), payload: { clip_daily_bytes: 1 } });
        expect(res.statusCode, res.body).toBe(200);
        expect(await configRead()).toMatchObject({ clips: { accepting: false }, reads: 3 });
        expect((await configRead()).reads).toBe(0);
        // Past its time, it is read again.
        h.clock.advance(CLIP_STATE_CACHE_MS);
        expect((await configRead()).reads).toBe(3);
      } finally {
        spy.mockRestore();
      }
    });

    it('validates the clips settings: unmask selectors are bounded strings, no unknown fields', async () => {
      const site = await h.org('Clips config bad');
      const patch = (clips: unknown) => h.app.inject({ method: 'PATCH', url: `/v1/manage/sdk-config/production?site_id=${site.site_id}`, headers: bearer(site.jwt), payload: { clips } });
      const cases: [unknown, string][] = [
        [{ enabled: true, unmask: Array.from({ length: 51 }, (_, i) => `.c${i}`) }, 'clips.unmask'],
        [{ enabled: true, unmask: ['x'.repeat(257)] }, 'clips.unmask.0'],
        [{ enabled: true, unmask: [42] }, 'clips.unmask.0'],
        [{ enabled: true, unmask: ['.a { color: red }'] }, 'clips.unmask.0'],
        [{ enabled: 'yes' }, 'clips.enabled'],
        [{ enabled: true, record_everything: true }, 'clips.record_everything'],
      ];
      for (const [clips, field] of cases) expectError(await patch(clips), 400, 'invalid_input', field);
    });
  });
});

eachDialect('clip upload rate limit', ({ name }) => {
  const h = useHarness(name, { config: { rateLimits: { query: 1000, manage: 1000, ingest: 3, guide: 200, mcp: 1000 } } });

  it('shares the key\'s ingest limit: over it, 429 rate_limited with Retry-After, nothing stored', async () => {
    const org = await h.org('Clips limited');
    const session = await seedSession(h, org);
    await upload(h, clipBody(h, org, session));
    await upload(h, clipBody(h, org, session));
    const res = await postClip(h, clipBody(h, org, session));
    expectError(res, 429, 'rate_limited');
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(await clipCount(h, org.site_id)).toBe(2);
  });
});
