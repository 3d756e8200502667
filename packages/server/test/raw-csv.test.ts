// GET /v1/query/raw (allow-listed tables and sort columns, bounds, tenancy) and
// GET /v1/query/export/events.csv (header, RFC 4180 quoting, streaming with flat memory over
// 200,000 rows). Both dialects.
import { randomBytes } from 'node:crypto';
import { get } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { bearer, eachDialect, useHarness } from './helpers/harness.ts';
import { expectInvalid, hex32, MIN, query, queryOk, SEC, send, type Org } from './helpers/ingest-kit.ts';
import { csvField, csvRow } from '../src/features/raw/csv.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const HEADER = 'id,session_id,visitor_id,type,page,occurred_at,name,signal_type,element_selector,label,referrer_page,environment,props';
const RAW_TABLES = ['events', 'signals', 'sessions', 'page_scores', 'score_history', 'ux_issues', 'deploys', 'alerts'];

/** A strict RFC 4180 parser: CRLF records, quoted fields with doubled quotes. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let i = 0;
  let quoted = false;
  while (i < text.length) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { field += '"'; i += 2; continue; }
      if (c === '"') { quoted = false; i++; continue; }
      field += c; i++; continue;
    }
    if (c === '"' && field === '') { quoted = true; i++; continue; }
    if (c === '"') throw new Error(`stray quote at ${i}`);
    if (c === ',') { record.push(field); field = ''; i++; continue; }
    if (c === '\r' && text[i + 1] === '\n') { record.push(field); records.push(record); record = []; field = ''; i += 2; continue; }
    if (c === '\n' || c === '\r') throw new Error(`bare line break at ${i}`);
    field += c; i++;
  }
  if (field !== '' || record.length > 0) throw new Error('last record not terminated by CRLF');
  return records;
}

eachDialect('raw data and CSV export', ({ name, skip }) => {
  const h = useHarness(name, { raisedLimits: true, newMinuteEachTest: true });

  /** `n` pageviews on /raw/<i> in one session, a second apart, the last one newest. */
  async function pageviews(org: Org, n: number, prefix = 'raw') {
    const now = h.clock.now();
    const sid = hex32();
    const events = Array.from({ length: n }, (_, i) => ({ type: 'pageview', ts: now - (n - i) * SEC, page: `/${prefix}/p${i}` }));
    for (let i = 0; i < events.length; i += 250) await send(h, org, sid, events.slice(i, i + 250));
    return { sid, times: events.map((e) => e.ts) };
  }

  describe('raw', () => {
    it.skipIf(skip)('an unknown table, an unknown or internal sort column, a bad order or limit are 400 naming the parameter', async () => {
      const org = await h.org('Raw');
      const token = org.keys.secret;
      await pageviews(org, 2);
      await expectInvalid(h, token, '/v1/query/raw?table=users', 'table');
      await expectInvalid(h, token, '/v1/query/raw?table=api_keys', 'table');
      await expectInvalid(h, token, '/v1/query/raw', 'table');
      await expectInvalid(h, token, '/v1/query/raw?table=events&sort=nope', 'sort');
      await expectInvalid(h, token, '/v1/query/raw?table=events&sort=dedupe_key', 'sort');
      await expectInvalid(h, token, '/v1/query/raw?table=events&sort=site_id', 'sort');
      await expectInvalid(h, token, `/v1/query/raw?table=events&sort=${encodeURIComponent('occurred_at; DROP TABLE events')}`, 'sort');
      await expectInvalid(h, token, '/v1/query/raw?table=events&order=sideways', 'order');
      await expectInvalid(h, token, '/v1/query/raw?table=events&order=DESC', 'order');
      await expectInvalid(h, token, '/v1/query/raw?table=events&limit=0', 'limit');
      await expectInvalid(h, token, '/v1/query/raw?table=events&limit=1001', 'limit');
      await expectInvalid(h, token, '/v1/query/raw?table=events&offset=-1', 'offset');
      // Nothing was run as SQL: the events are still there.
      expect((await queryOk(h, token, '/v1/query/raw?table=events')).total).toBe(2);
    });

    it.skipIf(skip)('every table answers with { table, rows, total, offset, limit }; internal columns never leave', async () => {
      const org = await h.org('Raw');
      const token = org.keys.secret;
      const now = h.clock.now();
      await send(h, org, hex32(), [
        { type: 'pageview', ts: now - 2 * SEC, page: '/a' },
        { type: 'signal', ts: now - SEC, page: '/a', signal_type: 'rage_click', element: 'b', hx: 500, hy: 500 },
      ]);
      for (const table of RAW_TABLES) {
        const data = await queryOk(h, token, `/v1/query/raw?table=${table}`);
        expect(data).toMatchObject({ table, offset: 0, limit: 100 });
        expect(data.total).toBe(data.rows.length);
        for (const row of data.rows) {
          for (const hidden of ['site_id', 'dedupe_key', 'client_ts', 'key_hash', 'fingerprint', 'secret']) expect(row).not.toHaveProperty(hidden);
        }
      }
      const events = await queryOk(h, token, '/v1/query/raw?table=events&order=asc');
      expect(events.rows.map((r: { type: string; page: string; occurred_at: string }) => [r.type, r.page, r.occurred_at]))
        .toEqual([['pageview', '/a', new Date(now - 2 * SEC).toISOString()], ['signal', '/a', new Date(now - SEC).toISOString()]]);
      const signals = await queryOk(h, token, '/v1/query/raw?table=signals');
      expect(signals.rows).toHaveLength(1);
      expect(signals.rows[0]).toMatchObject({ signal_type: 'rage_click', page: '/a', element: 'b', confidence: 1, rx: 0.5, ry: 0.5, vx: null, vy: null });
      const sessions = await queryOk(h, token, '/v1/query/raw?table=sessions');
      expect(sessions.rows[0]).toMatchObject({ pages: ['/a'], signal_counts: { rage_click: 1 }, converted: false, page_count: 1 });
    });

    it.skipIf(skip)('sort, order, limit (default 100, max 1000) and offset page through the site\'s rows', async () => {
      const org = await h.org('Raw');
      const token = org.keys.secret;
      const { times } = await pageviews(org, 105);
      const byTime = (rows: { occurred_at: string }[]) => rows.map((r) => Date.parse(r.occurred_at));

      const first = await queryOk(h, token, '/v1/query/raw?table=events');
      expect(first.total).toBe(105);
      expect(first.limit).toBe(100);
      // Default: the main time column, newest first.
      expect(byTime(first.rows)).toEqual([...times].reverse().slice(0, 100));
      const asc = await queryOk(h, token, '/v1/query/raw?table=events&sort=occurred_at&order=asc&limit=3&offset=2');
      expect(asc).toMatchObject({ total: 105, offset: 2, limit: 3 });
      expect(byTime(asc.rows)).toEqual(times.slice(2, 5));
      const byPage = await queryOk(h, token, '/v1/query/raw?table=events&sort=page&order=desc&limit=3');
      // Text order: p99 > p98 > p97 (p100..p104 sort below p11).
      expect(byPage.rows.map((r: { page: string }) => r.page)).toEqual(['/raw/p99', '/raw/p98', '/raw/p97']);
      const all = await queryOk(h, token, '/v1/query/raw?table=events&limit=1000');
      expect(all.rows).toHaveLength(105);
      const past = await queryOk(h, token, '/v1/query/raw?table=events&offset=200');
      expect(past).toMatchObject({ rows: [], total: 105, offset: 200 });
    });

    it.skipIf(skip)('another site\'s rows are never returned', async () => {
      const a = await h.org('Raw');
      const b = await h.org('Raw');
      const mine = await pageviews(a, 3, 'mine');
      const theirs = await pageviews(b, 4, 'theirs');
      const jwt = await h.login(a.email, a.password);
      const created = await h.app.inject({ method: 'POST', url: '/v1/manage/site', headers: bearer(jwt), payload: { name: 'Sibling', url: 'https://sibling.example' } });
      expect(created.statusCode, created.body).toBe(201);
      const siblingId = created.json().data.id as string;

      for (const table of ['events', 'sessions']) {
        const rows = (await queryOk(h, a.keys.secret, `/v1/query/raw?table=${table}&limit=1000`)).rows as { sid: string }[];
        expect(rows.length).toBeGreaterThan(0);
        expect(rows.every((r) => r.sid === mine.sid)).toBe(true);
      }
      const pages = (await queryOk(h, a.keys.secret, '/v1/query/raw?table=events')).rows.map((r: { page: string }) => r.page);
      expect(pages.sort()).toEqual(['/mine/p0', '/mine/p1', '/mine/p2']);

      // Naming another org's site: 404. A sibling site with a key of the first: 403. Nothing leaks.
      const other = await query(h, a.keys.secret, `/v1/query/raw?table=events&site_id=${b.site_id}`);
      expect(other.statusCode).toBe(404);
      expect(other.json()).toMatchObject({ data: null, error: { code: 'not_found' } });
      const sibling = await query(h, a.keys.secret, `/v1/query/raw?table=events&site_id=${siblingId}`);
      expect(sibling.statusCode).toBe(403);
      expect(sibling.json().data).toBeNull();
      // The org-level JWT reads the sibling site: empty, not the first site's rows.
      expect(await queryOk(h, jwt, `/v1/query/raw?table=events&site_id=${siblingId}`)).toMatchObject({ rows: [], total: 0 });
      const otherJwt = await query(h, jwt, `/v1/query/raw?table=events&site_id=${b.site_id}`);
      expect(otherJwt.statusCode).toBe(404);
      const csv = await query(h, a.keys.secret, '/v1/query/export/events.csv');
      expect(csv.body).not.toContain(theirs.sid);
      expect(csv.body).toContain(mine.sid);
    });
  });

  describe('events.csv', () => {
    it.skipIf(skip)('has the header row, CRLF records and RFC 4180 quoting of commas, quotes and line breaks', async () => {
      const org = await h.org('Csv');
      const now = h.clock.now();
      const sid = hex32();
      const vid = hex32();
      await send(h, org, sid, [
        { type: 'pageview', ts: now - 5 * SEC, page: '/checkout' },
        { type: 'signal', ts: now - 4 * SEC, page: '/checkout', signal_type: 'dead_click', element: 'div[title="a,b"]', label: 'Save, then continue' },
        { type: 'signal', ts: now - 3 * SEC, page: '/checkout', signal_type: 'rage_click', element: 'ul\r\nli', label: 'The "big" button' },
        { type: 'track', ts: now - 2 * SEC, page: '/checkout', name: 'say "hi",\nplease', props: { note: 'a,b' } },
      ], { vid });

      const res = await query(h, org.keys.secret, '/v1/query/export/events.csv');
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/csv/);
      const text = res.body;
      expect(text.startsWith(`${HEADER}\r\n`)).toBe(true);
      const records = parseCsv(text);
      expect(records[0]).toEqual(HEADER.split(','));
      expect(records).toHaveLength(5);
      const t = (ms: number) => new Date(ms).toISOString();
      expect(records.slice(1).map((r) => r.slice(1))).toEqual([
        [sid, vid, 'pageview', '/checkout', t(now - 5 * SEC), '', '', '', '', '', 'production', ''],
        [sid, vid, 'signal', '/checkout', t(now - 4 * SEC), '', 'dead_click', 'div[title="a,b"]', 'Save, then continue', '', 'production', ''],
        [sid, vid, 'signal', '/checkout', t(now - 3 * SEC), '', 'rage_click', 'ul\r\nli', 'The "big" button', '', 'production', ''],
        [sid, vid, 'track', '/checkout', t(now - 2 * SEC), 'say "hi",\nplease', '', '', '', '', 'production', '{"note":"a,b"}'],
      ]);
      // The exact quoted forms, written out by hand.
      expect(text).toContain(',"div[title=""a,b""]","Save, then continue",,production,\r\n');
      expect(text).toContain(',"ul\r\nli","The ""big"" button",,production,\r\n');
      expect(text).toContain(`,track,/checkout,${t(now - 2 * SEC)},"say ""hi"",\nplease",,,,,production,"{""note"":""a,b""}"\r\n`);
      // Plain fields are not quoted.
      expect(text).toContain(`,${sid},${vid},pageview,/checkout,${t(now - 5 * SEC)},,,,,,production,\r\n`);
    });

    it.skipIf(skip)('cells a spreadsheet would run get a leading quote; raw=1 gives the verbatim file', async () => {
      const org = await h.org('Csv');
      const now = h.clock.now();
      const sid = hex32();
      const vid = hex32();
      await send(h, org, sid, [
        { type: 'signal', ts: now - 4 * SEC, page: '/pay', signal_type: 'dead_click', element: '=cmd|\' /C calc\'!A0', label: '=HYPERLINK("evil","Click")' },
        { type: 'signal', ts: now - 3 * SEC, page: '/pay', signal_type: 'rage_click', element: '@SUM(A1)', label: '+1+2' },
        { type: 'track', ts: now - 2 * SEC, page: '/pay', name: '-5', props: { note: '=1' } },
      ], { vid });
      const t = (ms: number) => new Date(ms).toISOString();
      const safe = await query(h, org.keys.secret, '/v1/query/export/events.csv');
      expect(safe.statusCode).toBe(200);
      expect(parseCsv(safe.body).slice(1).map((r) => r.slice(1))).toEqual([
        [sid, vid, 'signal', '/pay', t(now - 4 * SEC), '', 'dead_click', '\'=cmd|\' /C calc\'!A0', '\'=HYPERLINK("evil","Click")', '', 'production', ''],
        [sid, vid, 'signal', '/pay', t(now - 3 * SEC), '', 'rage_click', '\'@SUM(A1)', '\'+1+2', '', 'production', ''],
        // A negative number is neutralised too (the export has no numeric column); props is JSON, starting with {.
        [sid, vid, 'track', '/pay', t(now - 2 * SEC), '\'-5', '', '', '', '', 'production', '{"note":"=1"}'],
      ]);
      // The quote goes inside RFC 4180's quoting.
      expect(safe.body).toContain(',"\'=HYPERLINK(""evil"",""Click"")",');

      const verbatim = await query(h, org.keys.secret, '/v1/query/export/events.csv?raw=1');
      expect(verbatim.statusCode).toBe(200);
      expect(parseCsv(verbatim.body).slice(1).map((r) => [r[6], r[8], r[9]])).toEqual([
        ['', '=cmd|\' /C calc\'!A0', '=HYPERLINK("evil","Click")'],
        ['', '@SUM(A1)', '+1+2'],
        ['-5', '', ''],
      ]);
      expect((await query(h, org.keys.secret, '/v1/query/export/events.csv?raw=0')).body).toBe(safe.body);
      await expectInvalid(h, org.keys.secret, '/v1/query/export/events.csv?raw=yes', 'raw');
    });

    it.skipIf(skip)('an empty site exports only the header; from and to bound the rows', async () => {
      const org = await h.org('Csv');
      const res = await query(h, org.keys.secret, '/v1/query/export/events.csv');
      expect(res.statusCode).toBe(200);
      expect(res.body).toBe(`${HEADER}\r\n`);
      const { times } = await pageviews(org, 5);
      const from = new Date(times[1]).toISOString();
      const to = new Date(times[3]).toISOString();
      const bounded = parseCsv((await query(h, org.keys.secret, `/v1/query/export/events.csv?from=${from}&to=${to}`)).body);
      expect(bounded.slice(1).map((r) => r[4])).toEqual(['/raw/p1', '/raw/p2']);
      await expectInvalid(h, org.keys.secret, '/v1/query/export/events.csv?from=yesterday', 'from');
    });

    it.skipIf(skip)('streams 200,000 rows in order while the heap stays flat', { timeout: 300_000 }, async () => {
      const org = await h.org('Csv');
      const N = 200_000;
      const base = h.clock.now() - 2 * 24 * 60 * MIN;
      const tag = randomBytes(2).toString('hex');
      const idOf = (i: number) => `0000${tag}-0000-7000-8000-${i.toString(16).padStart(12, '0')}`;
      const sid = hex32();
      // Written straight to the store (ingest is not under test here). Three events share each
      // millisecond, so the keyset pages of the export must break ties by id.
      await h.store.db.transaction().execute(async (trx) => {
        for (let start = 0; start < N; start += 1000) {
          const rows = [];
          for (let i = start; i < start + 1000; i++) {
            rows.push({
              id: idOf(i), site_id: org.site_id, sid, visitor_id: sid, type: 'signal', page: `/bulk/page-${i % 50}`,
              occurred_at: base + Math.floor(i / 3), client_ts: null, received_at: base, dedupe_key: `bulk-${i}`, name: null,
              signal_type: 'rage_click', element: `button.bulk-row-${i}`, label: `Label for row ${i}, padded`, props: null,
              referrer_page: null, environment: 'production',
            });
          }
          await trx.insertInto('events').values(rows).execute();
        }
      });

      await h.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = h.app.server.address() as AddressInfo;

      gc();
      const baseline = process.memoryUsage().heapUsed;
      let peak = 0;
      let bytes = 0;
      let chunks = 0;
      let rows = -1; // the header
      let carry = '';
      let mismatch: string | null = null;
      await new Promise<void>((resolve, reject) => {
        const req = get({ host: '127.0.0.1', port, path: '/v1/query/export/events.csv', headers: bearer(org.keys.secret) }, (res) => {
          if (res.statusCode !== 200) { reject(new Error(`status ${res.statusCode}`)); return; }
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            bytes += Buffer.byteLength(chunk);
            const lines = (carry + chunk).split('\r\n');
            carry = lines.pop()!;
            for (const line of lines) {
              if (rows >= 0 && mismatch === null && !line.startsWith(`${idOf(rows)},`)) mismatch = `row ${rows}: ${line.slice(0, 60)}`;
              rows++;
            }
            // Measure what the process holds while the export is under way, not the garbage.
            if (++chunks % 40 === 0) {
              gc();
              peak = Math.max(peak, process.memoryUsage().heapUsed - baseline);
            }
          });
          res.on('end', () => resolve());
          res.on('error', reject);
        });
        req.on('error', reject);
      });

      expect(carry).toBe('');
      expect(mismatch).toBeNull();
      expect(rows).toBe(N);
      expect(chunks).toBeGreaterThan(40);
      // The export is tens of megabytes; the heap never holds more than a small part of it (a
      // page of rows plus what the stream buffers under backpressure), where building the
      // export in memory would hold all of it.
      expect(bytes).toBeGreaterThan(N * 100);
      expect(peak).toBeLessThan(bytes / 4);
      console.log(`[${name}] events.csv: ${(bytes / 1e6).toFixed(1)} MB streamed, peak heap growth ${(peak / 1e6).toFixed(1)} MB`);
    });
  });
});

describe('csv cells', () => {
  it('OWASP\'s rule: =, +, -, @, tab and carriage return first get a quote; anything else, and raw cells, stay as they are', () => {
    expect(['=1', '+1', '-1', '@a', '\tx', '\rx'].map((v) => csvField(v))).toEqual(['\'=1', '\'+1', '\'-1', '\'@a', '\'\tx', '"\'\rx"']);
    expect(['a=1', ' =1', '/x', '2026-11-02T12:00:00.000Z', '', 'x-1'].map((v) => csvField(v))).toEqual(['a=1', ' =1', '/x', '2026-11-02T12:00:00.000Z', '', 'x-1']);
    expect(csvField(-5)).toBe('\'-5');
    expect(csvField(5)).toBe('5');
    expect(csvRow(['=1', '-2', '"@x"'], false)).toBe('=1,-2,"""@x"""\r\n');
    expect(csvRow(['=1', 'a,b'])).toBe('\'=1,"a,b"\r\n');
  });
});
