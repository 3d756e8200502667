// POST /v1/ingest: a golden batch stored exactly as DESIGN.md and DOMAIN.md say (sessions,
// events, signals with normalized coordinates, grouped pages, redacted labels), retries that
// store nothing twice, bad events rejected alone, bad batches and bad keys refused whole.
// Both dialects.
import { gzipSync } from 'node:zlib';
import { expect, it } from 'vitest';
import { bearer, createHarness, eachDialect, useHarness } from './helpers/harness.ts';
import { prepareEvents } from '../src/ingest/prepare.ts';
import type { BatchMeta } from '../src/ingest/session.ts';
import { storeBatches } from '../src/ingest/store-batch.ts';
import {
  batch, CHROME_WINDOWS_UA, countRows, hex32, MIN, postIngest, SEC, send, type Ev, type Org,
} from './helpers/ingest-kit.ts';

eachDialect('ingest', ({ name, skip }) => {
  // Each test in its own minute: the failed-authentication limiter never carries over.
  const h = useHarness(name, { raisedLimits: true, newMinuteEachTest: true });

  const signalsOf = (siteId: string) => h.store.db.selectFrom('signals')
    .select(['signal_type', 'page', 'element', 'label', 'confidence', 'rx', 'ry', 'vx', 'vy', 'occurred_at', 'sid'])
    .where('site_id', '=', siteId).orderBy('occurred_at').execute();
  const eventsOf = (siteId: string) => h.store.db.selectFrom('events')
    .select(['type', 'page', 'occurred_at', 'name', 'signal_type', 'element', 'label', 'referrer_page', 'sid', 'visitor_id', 'environment'])
    .where('site_id', '=', siteId).orderBy('occurred_at').execute();

  /** The golden batch: every coordinate format, clamping, confidence rules, redaction and grouping. */
  function golden(org: Org, sid: string, vid: string) {
    const B = h.clock.now() - 2 * MIN;
    const events: Ev[] = [
      { type: 'pageview', ts: B, page: '/pricing/?plan=pro#top', referrer: 'https://www.google.com/search?q=mallard', added_later: { x: 1 } },
      { type: 'pageview', ts: B + 10 * SEC, page: '/checkout', referrer_page: '/pricing' },
      {
        type: 'signal', ts: B + 15 * SEC, page: '/checkout', signal_type: 'rage_click', element: 'button.pay', label: 'Pay now',
        confidence: 0.9, hx: 512, hy: 480, vx: 724, vy: 312, count: 4, duration_ms: 1200,
      },
      // No page: the batch url's path. Older SDK offsets; viewport out of range; confidence above 1.
      {
        type: 'signal', ts: B + 20 * SEC, signal_type: 'dead_click', element: 'a.terms',
        label: 'Mail jane.doe@example.com or call +1 415 555 0100', confidence: 1.7,
        click_dx: -12, click_dy: 4, el_w: 120, el_h: 40, vx: 1500, vy: -20,
      },
      // hx/hy out of range; no viewport point; confidence below 0.
      {
        type: 'signal', ts: B + 25 * SEC, page: '/checkout', signal_type: 'disabled_element_attempt', element: 'button.submit',
        label: 'Card 4111 1111 1111 1111', confidence: -0.5, hx: 1200, hy: -40,
      },
      // Confidence null means 1.
      { type: 'signal', ts: B + 30 * SEC, page: '/checkout', signal_type: 'form_friction', element: 'input#email', confidence: null, hx: 100, hy: 100, vx: 100, vy: 100 },
      // A zero element size: no in-element point; missing confidence means 1.
      { type: 'signal', ts: B + 32 * SEC, page: '/checkout', signal_type: 'dead_click', element: 'div.old', click_dx: 10, click_dy: 10, el_w: 0, el_h: 40, vx: 50, vy: 60 },
      // Older SDK offset beyond the element's edge: clamped.
      { type: 'signal', ts: B + 34 * SEC, page: '/checkout', signal_type: 'rage_click', element: 'button.pay', click_dx: 90, click_dy: -30, el_w: 120, el_h: 40 },
      { type: 'pageview', ts: B + 40 * SEC, page: '/orders/8812/items' },
      { type: 'track', ts: B + 50 * SEC, page: '/orders/8812/items', name: 'checkout_completed', props: { amount_cents: 9900 } },
      { type: 'identify', ts: B + 55 * SEC, page: '/orders/8812/items', user_ref: 'user-42' },
    ];
    return {
      B,
      body: batch(h, org, sid, events, {
        vid, url: 'https://shop.example/checkout?step=2', env: 'production', sdk_build: 'future-field',
        meta: { viewport_w: 1280, viewport_h: 720, ua: CHROME_WINDOWS_UA, app_version: '2.4.1' },
      }),
    };
  }

  it.skipIf(skip)('a golden batch stores exactly the expected session, events and signals', async () => {
    const org = await h.org('Ingest');
    const sidUpper = hex32().toUpperCase();
    const sid = sidUpper.toLowerCase();
    const vid = hex32();
    const { B, body } = golden(org, sidUpper, vid);
    const res = await postIngest(h, body);
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json()).toEqual({ data: { accepted: 11, rejected: 0, rejections: [], duplicates: 0, dropped: 0 }, error: null });

    // Events: every one, pages as paths without query, fragment or trailing slash, ids grouped.
    const events = await eventsOf(org.site_id);
    expect(events.map((e) => ({ ...e, occurred_at: Number(e.occurred_at) }))).toEqual([
      { type: 'pageview', page: '/pricing', occurred_at: B, name: null, signal_type: null, element: null, label: null, referrer_page: null },
      { type: 'pageview', page: '/checkout', occurred_at: B + 10 * SEC, name: null, signal_type: null, element: null, label: null, referrer_page: '/pricing' },
      { type: 'signal', page: '/checkout', occurred_at: B + 15 * SEC, name: null, signal_type: 'rage_click', element: 'button.pay', label: 'Pay now', referrer_page: null },
      { type: 'signal', page: '/checkout', occurred_at: B + 20 * SEC, name: null, signal_type: 'dead_click', element: 'a.terms', label: 'Mail [redacted] or call [redacted]', referrer_page: null },
      { type: 'signal', page: '/checkout', occurred_at: B + 25 * SEC, name: null, signal_type: 'disabled_element_attempt', element: 'button.submit', label: 'Card [redacted]', referrer_page: null },
      { type: 'signal', page: '/checkout', occurred_at: B + 30 * SEC, name: null, signal_type: 'form_friction', element: 'input#email', label: null, referrer_page: null },
      { type: 'signal', page: '/checkout', occurred_at: B + 32 * SEC, name: null, signal_type: 'dead_click', element: 'div.old', label: null, referrer_page: null },
      { type: 'signal', page: '/checkout', occurred_at: B + 34 * SEC, name: null, signal_type: 'rage_click', element: 'button.pay', label: null, referrer_page: null },
      { type: 'pageview', page: '/orders/:id/items', occurred_at: B + 40 * SEC, name: null, signal_type: null, element: null, label: null, referrer_page: null },
      { type: 'track', page: '/orders/:id/items', occurred_at: B + 50 * SEC, name: 'checkout_completed', signal_type: null, element: null, label: null, referrer_page: null },
      { type: 'identify', page: '/orders/:id/items', occurred_at: B + 55 * SEC, name: null, signal_type: null, element: null, label: null, referrer_page: null },
    ].map((e) => ({ ...e, sid, visitor_id: vid, environment: 'production' })));

    // Signals: one per signal event; confidence clamped (missing/null = 1); coordinates as fractions.
    const signals = await signalsOf(org.site_id);
    expect(signals.map((s) => ({ ...s, occurred_at: Number(s.occurred_at) }))).toEqual([
      { signal_type: 'rage_click', element: 'button.pay', label: 'Pay now', confidence: 0.9, rx: 0.512, ry: 0.48, vx: 0.724, vy: 0.312, occurred_at: B + 15 * SEC },
      // 0.5 + (-12 / 120) = 0.4 and 0.5 + 4 / 40 = 0.6; vx 1500 -> 1, vy -20 -> 0.
      { signal_type: 'dead_click', element: 'a.terms', label: 'Mail [redacted] or call [redacted]', confidence: 1, rx: 0.4, ry: 0.6, vx: 1, vy: 0, occurred_at: B + 20 * SEC },
      { signal_type: 'disabled_element_attempt', element: 'button.submit', label: 'Card [redacted]', confidence: 0, rx: 1, ry: 0, vx: null, vy: null, occurred_at: B + 25 * SEC },
      { signal_type: 'form_friction', element: 'input#email', label: null, confidence: 1, rx: 0.1, ry: 0.1, vx: 0.1, vy: 0.1, occurred_at: B + 30 * SEC },
      { signal_type: 'dead_click', element: 'div.old', label: null, confidence: 1, rx: null, ry: null, vx: 0.05, vy: 0.06, occurred_at: B + 32 * SEC },
      // 0.5 + 90 / 120 = 1.25 -> 1; 0.5 - 30 / 40 = -0.25 -> 0.
      { signal_type: 'rage_click', element: 'button.pay', label: null, confidence: 1, rx: 1, ry: 0, vx: null, vy: null, occurred_at: B + 34 * SEC },
    ].map((s) => ({ ...s, page: '/checkout', sid })));

    // The session, upserted from the batch.
    const session = await h.store.db.selectFrom('sessions').selectAll().where('site_id', '=', org.site_id).executeTakeFirstOrThrow();
    expect({ ...session, first_seen_at: Number(session.first_seen_at), last_seen_at: Number(session.last_seen_at) }).toMatchObject({
      sid, visitor_id: vid, user_ref: 'user-42', environment: 'production',
      first_seen_at: B, last_seen_at: B + 55 * SEC, entry_page: '/pricing', exit_page: '/orders/:id/items',
      page_count: 3, event_count: 11, signal_count: 6,
      device_type: 'desktop', browser: 'Chrome', os: 'Windows', viewport_bucket: 'xl', app_version: '2.4.1',
      referrer_host: 'www.google.com', converted: 1,
    });
    expect(JSON.parse(session.pages)).toEqual(['/pricing', '/checkout', '/orders/:id/items']);
    expect(JSON.parse(session.signal_counts)).toEqual({ rage_click: 2, dead_click: 2, disabled_element_attempt: 1, form_friction: 1 });
    expect(await countRows(h.store, org.site_id)).toEqual({ sessions: 1, events: 11, signals: 6 });

    // The client's IP address is never stored.
    const ip = '203.0.113.77';
    const other = hex32();
    const res2 = await h.app.inject({ method: 'POST', url: '/v1/ingest', remoteAddress: ip, headers: { 'content-type': 'application/json', 'x-forwarded-for': ip }, payload: JSON.stringify(golden(org, other, hex32()).body) });
    expect(res2.statusCode).toBe(202);
    for (const table of ['sessions', 'events', 'signals'] as const) {
      const rows = await h.store.db.selectFrom(table).selectAll().where('site_id', '=', org.site_id).where('sid', '=', other).execute();
      expect(rows.length).toBeGreaterThan(0);
      expect(JSON.stringify(rows)).not.toContain(ip);
    }
  });

  it.skipIf(skip)('a second batch of the same session updates its row; a wrong client clock shifts the whole batch', async () => {
    const org = await h.org('Ingest');
    const sid = hex32();
    const now = h.clock.now();
    await send(h, org, sid, [{ type: 'pageview', ts: now - 30 * SEC, page: '/a' }, { type: 'signal', ts: now - 25 * SEC, page: '/a', signal_type: 'rage_click', element: 'b' }]);
    h.clock.advance(10 * SEC);
    // The client clock is one hour behind: events keep their gaps and move by (server - batch ts).
    const clientNow = h.clock.now() - 60 * MIN;
    const res = await postIngest(h, {
      key: org.keys.publishable, sid, ts: clientNow,
      events: [{ type: 'pageview', ts: clientNow - 4 * SEC, page: '/b' }, { type: 'signal', ts: clientNow - 1 * SEC, page: '/b', signal_type: 'my_custom_signal' }],
    });
    expect(res.statusCode, res.body).toBe(202);
    const serverNow = h.clock.now();
    const events = await eventsOf(org.site_id);
    expect(events.map((e) => [e.page, Number(e.occurred_at)])).toEqual([
      ['/a', now - 30 * SEC], ['/a', now - 25 * SEC], ['/b', serverNow - 4 * SEC], ['/b', serverNow - 1 * SEC],
    ]);
    const session = await h.store.db.selectFrom('sessions').selectAll().where('site_id', '=', org.site_id).executeTakeFirstOrThrow();
    expect(Number(session.first_seen_at)).toBe(now - 30 * SEC);
    expect(Number(session.last_seen_at)).toBe(serverNow - 1 * SEC);
    expect(session).toMatchObject({ entry_page: '/a', exit_page: '/b', page_count: 2, event_count: 4, signal_count: 2 });
    expect(JSON.parse(session.pages)).toEqual(['/a', '/b']);
    // An unknown signal type is stored as sent (it is scored with the fallback weight later).
    expect(JSON.parse(session.signal_counts)).toEqual({ rage_click: 1, my_custom_signal: 1 });
  });

  it.skipIf(skip)('a batch that arrives late (an SDK retry after a later batch) still gives the entry page and pages in order', async () => {
    const org = await h.org('Ingest');
    const sid = hex32();
    const now = h.clock.now();
    const first: Ev[] = [
      { type: 'pageview', ts: now - 60 * SEC, page: '/landing', referrer: 'https://news.example/item' },
      { type: 'pageview', ts: now - 50 * SEC, page: '/pricing' },
    ];
    const second: Ev[] = [
      { type: 'pageview', ts: now - 40 * SEC, page: '/signup' },
      { type: 'signal', ts: now - 35 * SEC, page: '/signup', signal_type: 'dead_click', element: 'button.go' },
      { type: 'pageview', ts: now - 30 * SEC, page: '/welcome' },
    ];
    // The second batch gets through first; the first is retried after it.
    await send(h, org, sid, second);
    await send(h, org, sid, first);
    const session = await h.store.db.selectFrom('sessions').selectAll().where('site_id', '=', org.site_id).executeTakeFirstOrThrow();
    expect(JSON.parse(session.pages)).toEqual(['/landing', '/pricing', '/signup', '/welcome']);
    expect(session).toMatchObject({ entry_page: '/landing', exit_page: '/welcome', page_count: 4, event_count: 5, signal_count: 1, referrer_host: 'news.example' });
    expect(Number(session.first_seen_at)).toBe(now - 60 * SEC);
    expect(Number(session.last_seen_at)).toBe(now - 30 * SEC);
  });

  it.skipIf(skip)('batches of one session written in the same group, late one second, keep the pages in order', async () => {
    const org = await h.org('Ingest');
    const sid = hex32();
    const now = h.clock.now();
    const prepared = (events: Ev[]) => prepareEvents({ sid, ts: now, events }, { now, import: false, pageGroups: [] }).events;
    const meta: BatchMeta = {
      siteId: org.site_id, sid, visitorId: null, environment: 'production', userAgent: null, viewportWidth: null, appVersion: null,
      conversionEvents: new Set(),
    };
    const later = prepared([{ type: 'pageview', ts: now - 20 * SEC, page: '/c' }, { type: 'pageview', ts: now - 10 * SEC, page: '/d' }]);
    const earlier = prepared([{ type: 'pageview', ts: now - 40 * SEC, page: '/a' }, { type: 'pageview', ts: now - 30 * SEC, page: '/b' }]);
    const results = await storeBatches(h.store.db, h.store.dialect, [{ meta, events: later, now }, { meta, events: earlier, now }]);
    expect(results).toEqual([{ inserted: 2, duplicates: 0 }, { inserted: 2, duplicates: 0 }]);
    const session = await h.store.db.selectFrom('sessions').selectAll().where('site_id', '=', org.site_id).executeTakeFirstOrThrow();
    expect(JSON.parse(session.pages)).toEqual(['/a', '/b', '/c', '/d']);
    expect(session).toMatchObject({ entry_page: '/a', exit_page: '/d', page_count: 4, event_count: 4 });
    expect([Number(session.first_seen_at), Number(session.last_seen_at)]).toEqual([now - 40 * SEC, now - 10 * SEC]);
  });

  it.skipIf(skip)('a site\'s own page groups apply after id grouping', async () => {
    const org = await h.org('Ingest');
    const patch = await h.app.inject({
      method: 'PATCH', url: '/v1/manage/sdk-config/production', headers: bearer(org.keys.secret),
      payload: { page_groups: [{ match: '^/blog/[^/]+$', page: '/blog/:slug' }] },
    });
    expect(patch.statusCode, patch.body).toBe(200);
    const now = h.clock.now();
    await send(h, org, hex32(), [
      { type: 'pageview', ts: now - 5 * SEC, page: '/blog/hello-world' },
      { type: 'pageview', ts: now - 4 * SEC, page: '/users/550e8400-e29b-41d4-a716-446655440000/' },
      { type: 'pageview', ts: now - 3 * SEC, page: 'https://shop.example/invoices/deadbeefdeadbeef0123/pdf?x=1' },
      { type: 'pageview', ts: now - 2 * SEC, page: '/documentation' },
    ]);
    const pages = (await eventsOf(org.site_id)).map((e) => e.page);
    expect(pages).toEqual(['/blog/:slug', '/users/:id', '/invoices/:id/pdf', '/documentation']);
  });

  it.skipIf(skip)('a retried batch stores nothing twice, with or without event ids', async () => {
    const org = await h.org('Ingest');
    const sid = hex32();
    const { body } = golden(org, sid, hex32());
    const first = await postIngest(h, body);
    expect(first.statusCode).toBe(202);
    const before = await countRows(h.store, org.site_id);
    expect(before).toEqual({ sessions: 1, events: 11, signals: 6 });
    const sessionBefore = await h.store.db.selectFrom('sessions').selectAll().where('site_id', '=', org.site_id).executeTakeFirstOrThrow();

    // The same batch retried later (the SDK resends it with a new batch ts): every event is a duplicate.
    h.clock.advance(30 * SEC);
    const retry = await postIngest(h, { ...body, ts: h.clock.now() });
    expect(retry.statusCode, retry.body).toBe(202);
    expect(retry.json().data).toEqual({ accepted: 11, rejected: 0, rejections: [], duplicates: 11, dropped: 0 });
    expect(await countRows(h.store, org.site_id)).toEqual(before);
    const sessionAfter = await h.store.db.selectFrom('sessions').selectAll().where('site_id', '=', org.site_id).executeTakeFirstOrThrow();
    expect(sessionAfter).toEqual(sessionBefore);

    // With SDK ids: the id decides, whatever else the retry carries; one new event is stored.
    const now = h.clock.now();
    const idA = 'a1b2c3d4e5f60718';
    const withIds: Ev[] = [{ type: 'signal', id: idA, ts: now - 3 * SEC, page: '/x', signal_type: 'dead_click', element: 'a' }];
    await send(h, org, sid, withIds);
    const again = await postIngest(h, batch(h, org, sid, [
      { type: 'signal', id: idA.toUpperCase(), ts: now - 2 * SEC, page: '/x', signal_type: 'dead_click', element: 'a' },
      { type: 'signal', id: 'ffffffffffffffff', ts: now - 2 * SEC, page: '/x', signal_type: 'dead_click', element: 'a' },
      // The same event twice in one batch is stored once.
      { type: 'signal', id: 'ffffffffffffffff', ts: now - 2 * SEC, page: '/x', signal_type: 'dead_click', element: 'a' },
    ]));
    expect(again.statusCode).toBe(202);
    expect(again.json().data).toMatchObject({ accepted: 3, rejected: 0, duplicates: 2 });
    expect(await countRows(h.store, org.site_id)).toEqual({ sessions: 1, events: 13, signals: 8 });
    const session = await h.store.db.selectFrom('sessions').select(['event_count', 'signal_count']).where('site_id', '=', org.site_id).executeTakeFirstOrThrow();
    expect(session).toEqual({ event_count: 13, signal_count: 8 });
  });

  it.skipIf(skip)('a batch with bad events keeps the others and names each bad one by index and code', async () => {
    const org = await h.org('Ingest');
    const now = h.clock.now();
    const res = await postIngest(h, batch(h, org, hex32(), [
      { type: 'pageview', ts: now - 5 * SEC, page: '/ok' },
      { type: 'signal', ts: now - 4 * SEC, page: '/ok' }, // no signal_type
      { type: 'teleport', ts: now - 3 * SEC, page: '/ok' },
      'not an object',
      { type: 'pageview', ts: now - 30 * 24 * 60 * MIN, page: '/old' }, // 30 days old, live
      { type: 'pageview', ts: now - 2 * SEC, page: 'no-slash' },
      { type: 'signal', ts: now - 1 * SEC, page: '/ok', signal_type: 'dead_click', element: 'a.x', vx: 500, vy: 500 },
    ]));
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json().data).toEqual({
      accepted: 2, rejected: 5, duplicates: 0, dropped: 0,
      rejections: [
        { index: 1, code: 'invalid_field', field: 'signal_type' },
        { index: 2, code: 'unknown_event_type', field: 'type' },
        { index: 3, code: 'invalid_event' },
        { index: 4, code: 'ts_out_of_range', field: 'ts' },
        { index: 5, code: 'invalid_page', field: 'page' },
      ],
    });
    expect(await countRows(h.store, org.site_id)).toEqual({ sessions: 1, events: 2, signals: 1 });
    expect((await eventsOf(org.site_id)).map((e) => e.page)).toEqual(['/ok', '/ok']);
  });

  it.skipIf(skip)('a publishable key of another site, or a revoked one, is refused and stores nothing', async () => {
    const a = await h.org('Ingest');
    const b = await h.org('Ingest');
    const now = h.clock.now();
    const events = [{ type: 'pageview', ts: now - SEC, page: '/' }];
    const jwt = await h.login(a.email, a.password);

    // Site B's key naming site A (another org): 404, existence never leaks.
    const other = await postIngest(h, { key: b.keys.publishable, site_id: a.site_id, sid: hex32(), ts: now, events });
    expect(other.statusCode, other.body).toBe(404);
    expect(other.json()).toMatchObject({ data: null, error: { code: 'not_found', status: 404 } });

    // A sibling site in A's own org: its key cannot write into A's first site.
    const created = await h.app.inject({ method: 'POST', url: '/v1/manage/site', headers: bearer(jwt), payload: { name: 'Second', url: 'https://second.example' } });
    expect(created.statusCode, created.body).toBe(201);
    const siblingId = created.json().data.id as string;
    const key = await h.app.inject({ method: 'POST', url: '/v1/manage/keys', headers: bearer(jwt), payload: { site_id: siblingId, key_type: 'publishable' } });
    expect(key.statusCode, key.body).toBe(201);
    const siblingKey = key.json().data.key as string;
    const sibling = await postIngest(h, { key: siblingKey, site_id: a.site_id, sid: hex32(), ts: now, events });
    expect(sibling.statusCode, sibling.body).toBe(403);
    expect(sibling.json().error.code).toBe('forbidden');

    // Revoked: the key fails at once.
    const ok = await postIngest(h, { key: siblingKey, sid: hex32(), ts: now, events });
    expect(ok.statusCode, ok.body).toBe(202);
    const revoke = await h.app.inject({ method: 'DELETE', url: `/v1/manage/keys/${key.json().data.id}`, headers: bearer(jwt) });
    expect(revoke.statusCode, revoke.body).toBe(200);
    const revoked = await postIngest(h, { key: siblingKey, sid: hex32(), ts: now, events });
    expect(revoked.statusCode, revoked.body).toBe(401);
    expect(revoked.json()).toMatchObject({ data: null, error: { code: 'invalid_key', status: 401 } });

    // A made-up key and no key at all.
    const fake = await postIngest(h, { key: `svc_pub_${'x'.repeat(32)}`, sid: hex32(), ts: now, events });
    expect(fake.json().error.code).toBe('invalid_key');
    const none = await postIngest(h, { sid: hex32(), ts: now, events });
    expect(none.statusCode).toBe(401);
    expect(none.json().error.code).toBe('missing_auth');

    expect(await countRows(h.store, a.site_id)).toEqual({ sessions: 0, events: 0, signals: 0 });
    expect(await countRows(h.store, b.site_id)).toEqual({ sessions: 0, events: 0, signals: 0 });
    expect(await countRows(h.store, siblingId)).toEqual({ sessions: 1, events: 1, signals: 0 });
  });

  it.skipIf(skip)('a batch of 251 events, a 2 MiB body and a body that is not JSON are refused whole with their codes', async () => {
    const org = await h.org('Ingest');
    const now = h.clock.now();
    const event = (i: number): Ev => ({ type: 'pageview', ts: now - 300 * SEC + i * 10, page: `/p${i}` });

    const ok250 = await postIngest(h, batch(h, org, hex32(), Array.from({ length: 250 }, (_, i) => event(i))));
    expect(ok250.statusCode, ok250.body).toBe(202);
    expect(ok250.json().data.accepted).toBe(250);
    const before = await countRows(h.store, org.site_id);

    const over = await postIngest(h, batch(h, org, hex32(), Array.from({ length: 251 }, (_, i) => event(i))));
    expect(over.statusCode).toBe(400);
    expect(over.json()).toMatchObject({ data: null, error: { code: 'invalid_input', status: 400, details: { field: 'events' } } });

    const empty = await postIngest(h, batch(h, org, hex32(), []));
    expect(empty.statusCode).toBe(400);
    expect(empty.json().error).toMatchObject({ code: 'invalid_input', details: { field: 'events' } });

    const huge = JSON.stringify({ ...batch(h, org, hex32(), [event(0)]), padding: 'x'.repeat(2 * 1024 * 1024) });
    const tooLarge = await postIngest(h, huge);
    expect(tooLarge.statusCode).toBe(413);
    expect(tooLarge.json()).toMatchObject({ data: null, error: { code: 'payload_too_large', status: 413 } });

    // The cap applies to the decompressed body too.
    const bomb = await postIngest(h, gzipSync(huge), { 'content-encoding': 'gzip' });
    expect(bomb.statusCode).toBe(413);
    expect(bomb.json().error.code).toBe('payload_too_large');

    const notJson = await postIngest(h, `{"key":"${org.keys.publishable}","sid":`, { 'content-type': 'text/plain' });
    expect(notJson.statusCode).toBe(400);
    expect(notJson.json()).toMatchObject({ data: null, error: { code: 'invalid_json', status: 400 } });
    const notJson2 = await postIngest(h, 'sid=1&events=2');
    expect(notJson2.statusCode).toBe(400);
    expect(notJson2.json().error.code).toBe('invalid_json');

    const empty2 = await postIngest(h, '');
    expect(empty2.statusCode).toBe(400);
    expect(empty2.json().error.code).toBe('empty_body');
    const corrupt = await postIngest(h, Buffer.from('not gzip at all'), { 'content-encoding': 'gzip' });
    expect(corrupt.statusCode).toBe(400);
    expect(corrupt.json().error.code).toBe('invalid_input');

    const badSid = await postIngest(h, { ...batch(h, org, 'not-hex', [event(0)]) });
    expect(badSid.statusCode).toBe(400);
    expect(badSid.json().error).toMatchObject({ code: 'invalid_input', details: { field: 'sid' } });

    expect(await countRows(h.store, org.site_id)).toEqual(before);
  });

  it.skipIf(skip)('text/plain and gzip bodies are accepted; other content types are 415', async () => {
    const org = await h.org('Ingest');
    const now = h.clock.now();
    const body = JSON.stringify(batch(h, org, hex32(), [{ type: 'pageview', ts: now - SEC, page: '/beacon' }]));
    const beacon = await postIngest(h, body, { 'content-type': 'text/plain;charset=UTF-8' });
    expect(beacon.statusCode, beacon.body).toBe(202);
    const gz = await postIngest(h, gzipSync(JSON.stringify(batch(h, org, hex32(), [{ type: 'pageview', ts: now - SEC, page: '/gz' }]))), { 'content-encoding': 'gzip' });
    expect(gz.statusCode, gz.body).toBe(202);
    const form = await postIngest(h, body, { 'content-type': 'application/x-www-form-urlencoded' });
    expect(form.statusCode).toBe(415);
    expect(form.json().error.code).toBe('unsupported_media_type');
    expect((await eventsOf(org.site_id)).map((e) => e.page).sort()).toEqual(['/beacon', '/gz']);
  });

  it.skipIf(skip)('bots are acknowledged and dropped; development environments keep them; allowed origins are enforced', async () => {
    const org = await h.org('Ingest');
    const now = h.clock.now();
    const ev = [{ type: 'pageview', ts: now - SEC, page: '/' }, { type: 'pageview', ts: now - 500, page: '/b' }];
    const bot = await postIngest(h, batch(h, org, hex32(), ev, { meta: { ua: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)' } }));
    expect(bot.statusCode).toBe(202);
    expect(bot.json().data).toEqual({ accepted: 0, rejected: 0, rejections: [], duplicates: 0, dropped: 2 });
    const headless = await postIngest(h, batch(h, org, hex32(), ev), { 'user-agent': 'Mozilla/5.0 HeadlessChrome/120.0.0.0' });
    expect(headless.json().data.dropped).toBe(2);
    expect(await countRows(h.store, org.site_id)).toEqual({ sessions: 0, events: 0, signals: 0 });
    const dev = await postIngest(h, batch(h, org, hex32(), ev, { env: 'development', meta: { ua: 'HeadlessChrome' } }));
    expect(dev.json().data).toMatchObject({ accepted: 2, dropped: 0 });
    expect(await countRows(h.store, org.site_id)).toEqual({ sessions: 1, events: 2, signals: 0 });

    const jwt = await h.login(org.email, org.password);
    const patch = await h.app.inject({ method: 'PATCH', url: `/v1/manage/site/${org.site_id}`, headers: bearer(jwt), payload: { allowed_origins: ['https://shop.example'] } });
    expect(patch.statusCode, patch.body).toBe(200);
    const foreign = await postIngest(h, batch(h, org, hex32(), ev), { origin: 'https://evil.example' });
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json().error.code).toBe('forbidden');
    const own = await postIngest(h, batch(h, org, hex32(), ev), { origin: 'https://shop.example' });
    expect(own.statusCode, own.body).toBe(202);
    expect(own.headers['access-control-allow-origin']).toBe('*');
    const preflight = await h.app.inject({ method: 'OPTIONS', url: '/v1/ingest', headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST' } });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('*');
    // CORS is open for ingest only, not for the query surface.
    const read = await h.app.inject({ method: 'GET', url: '/v1/query/raw?table=events', headers: { ...bearer(org.keys.secret), origin: 'https://shop.example' } });
    expect(read.statusCode).toBe(200);
    expect(read.headers['access-control-allow-origin']).toBeUndefined();
    expect(await countRows(h.store, org.site_id)).toEqual({ sessions: 2, events: 4, signals: 0 });
  });

  it.skipIf(skip)('an org-scoped key with ingest:write names the site with site_id', async () => {
    const org = await h.org('Ingest');
    const jwt = await h.login(org.email, org.password);
    const created = await h.app.inject({ method: 'POST', url: '/v1/manage/keys', headers: bearer(jwt), payload: { key_type: 'secret', scopes: ['ingest:write'] } });
    expect(created.statusCode, created.body).toBe(201);
    const orgKey = created.json().data.key as string;
    const now = h.clock.now();
    const events = [{ type: 'pageview', ts: now - SEC, page: '/' }];
    const missing = await postIngest(h, { sid: hex32(), ts: now, events }, bearer(orgKey));
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error.code).toBe('missing_site_id');
    const res = await postIngest(h, { site_id: org.site_id, sid: hex32(), ts: now, events }, bearer(orgKey));
    expect(res.statusCode, res.body).toBe(202);
    expect(await countRows(h.store, org.site_id)).toEqual({ sessions: 1, events: 1, signals: 0 });
    // A read-only key cannot ingest.
    const reader = await h.app.inject({ method: 'POST', url: '/v1/manage/keys', headers: bearer(jwt), payload: { site_id: org.site_id, key_type: 'secret', scopes: ['query:read'] } });
    const denied = await postIngest(h, { sid: hex32(), ts: now, events }, bearer(reader.json().data.key));
    expect(denied.statusCode).toBe(403);
    expect(denied.json().error.code).toBe('missing_scope');
  });

  it.skipIf(skip)('labels are cut to 80 characters after redaction; selectors are redacted too', async () => {
    const org = await h.org('Ingest');
    const now = h.clock.now();
    const long = `Continue ${'x'.repeat(120)}`;
    await send(h, org, hex32(), [
      { type: 'signal', ts: now - 2 * SEC, page: '/', signal_type: 'dead_click', element: 'a[href="mailto:ann@example.com"]', label: long },
      { type: 'signal', ts: now - SEC, page: '/', signal_type: 'dead_click', element: 'a.link', label: '  Visit\n  https://shop.example/a?b=c  now ' },
    ]);
    const [first, second] = await signalsOf(org.site_id);
    expect(first.label!.length).toBe(80);
    expect(first.label!.startsWith('Continue xxxx')).toBe(true);
    expect(first.element).toBe('a[href="mailto:[redacted]"]');
    expect(second.label).toBe('Visit [redacted] now');
  });

  it.skipIf(skip)('each key may send its ingest limit of requests a minute; one over is 429 and stores nothing', async () => {
    const small = await createHarness(name, { config: { rateLimits: { query: 100, manage: 100, ingest: 3, guide: 200, mcp: 300 } } });
    try {
      const a = await small.org('Limited');
      const b = await small.org('Limited');
      const now = small.clock.now();
      const one = (org: Org, i: number) => postIngest(small, { key: org.keys.publishable, sid: hex32(), ts: now, events: [{ type: 'pageview', ts: now - SEC, page: `/p${i}` }] });
      for (let i = 0; i < 3; i++) expect((await one(a, i)).statusCode).toBe(202);
      const over = await one(a, 3);
      expect(over.statusCode).toBe(429);
      expect(over.json()).toMatchObject({ data: null, error: { code: 'rate_limited', status: 429, details: { reset_at: new Date(Math.ceil((now + 1) / MIN) * MIN).toISOString() } } });
      expect((await one(b, 0)).statusCode).toBe(202);
      expect(await countRows(small.store, a.site_id)).toEqual({ sessions: 3, events: 3, signals: 0 });
      small.clock.set(Math.ceil((now + 1) / MIN) * MIN);
      expect((await one(a, 4)).statusCode).toBe(202);
    } finally {
      await small.close();
    }
  });

  it.skipIf(skip)('imports need a secret key with ingest:write and keep timestamps up to 90 days old', async () => {
    const org = await h.org('Ingest');
    const now = h.clock.now();
    const sid = hex32();
    const old = now - 60 * 24 * 60 * MIN;
    const events = [{ type: 'pageview', ts: old, page: '/old' }, { type: 'pageview', ts: now - 95 * 24 * 60 * MIN, page: '/too-old' }];
    const pub = await postIngest(h, { key: org.keys.publishable, sid, ts: now, import: true, events });
    expect(pub.statusCode).toBe(403);
    expect(pub.json().error.code).toBe('missing_scope');
    const res = await postIngest(h, { sid, ts: now, import: true, events }, bearer(org.keys.secret));
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json().data).toMatchObject({ accepted: 1, rejected: 1, rejections: [{ index: 1, code: 'ts_out_of_range', field: 'ts' }] });
    expect((await eventsOf(org.site_id)).map((e) => [e.page, Number(e.occurred_at)])).toEqual([['/old', old]]);
  });
});
