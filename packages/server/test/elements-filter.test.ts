// GET /v1/query/elements filtered by device type and by a from/to window, fed through the
// real ingest route. Both dialects.
//
// Signals on /checkout, one session each:
//   desktop, 2 hours ago: 3 rage clicks on button.pay
//   mobile,  2 hours ago: 2 dead clicks on a.help
//   tablet,  2 hours ago: 1 rage click on button.pay
//   desktop, 12 days ago (an import): 1 rage click on input.coupon, outside the default 7 days
import { beforeAll, expect, it } from 'vitest';
import { bearer, eachDialect, useHarness } from './helpers/harness.ts';
import { CHROME_WINDOWS_UA, DAY, expectInvalid, hex32, MIN, postIngest, queryOk, send, type Org } from './helpers/ingest-kit.ts';

const IPHONE_UA = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const IPAD_UA = 'Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const iso = (ms: number) => new Date(ms).toISOString();

/** A pageview, then `count` signals of one type on one element, a second apart. */
function visit(at: number, type: string, element: string, count: number) {
  return [
    { type: 'pageview', ts: at, page: '/checkout' },
    ...Array.from({ length: count }, (_, i) => ({ type: 'signal', ts: at + (i + 1) * 1000, page: '/checkout', signal_type: type, element, confidence: 1 })),
  ];
}

eachDialect('elements filters', ({ name }) => {
  const h = useHarness(name, { raisedLimits: true });
  let org: Org;
  let now: number;

  beforeAll(async () => {
    org = await h.org('Elements');
    now = h.clock.now();
    await send(h, org, hex32(), visit(now - 120 * MIN, 'rage_click', 'button.pay', 3), { meta: { ua: CHROME_WINDOWS_UA } });
    await send(h, org, hex32(), visit(now - 120 * MIN, 'dead_click', 'a.help', 2), { meta: { ua: IPHONE_UA } });
    await send(h, org, hex32(), visit(now - 120 * MIN, 'rage_click', 'button.pay', 1), { meta: { ua: IPAD_UA } });
    const old = visit(now - 12 * DAY, 'rage_click', 'input.coupon', 1);
    const res = await postIngest(h, { sid: hex32(), ts: now, import: true, events: old, meta: { ua: CHROME_WINDOWS_UA } }, bearer(org.keys.secret));
    expect(res.statusCode, res.body).toBe(202);
    expect(res.json().data).toMatchObject({ accepted: old.length, rejected: 0 });
  }, 120_000);

  /** element -> [signal_count, affected_users] for the query string `params`. */
  async function elements(params: string) {
    const data = await queryOk(h, org.keys.secret, `/v1/query/elements?page=/checkout${params}`);
    expect(data.page).toBe('/checkout');
    return Object.fromEntries((data.elements as { element_selector: string; signal_count: number; affected_users: number }[])
      .map((e) => [e.element_selector, [e.signal_count, e.affected_users]]));
  }

  it('without filters: every device, the last 7 days (as before)', async () => {
    expect(await elements('')).toEqual({ 'button.pay': [4, 2], 'a.help': [2, 1] });
  });

  it('device keeps the signals of sessions on that device type only', async () => {
    expect(await elements('&device=desktop')).toEqual({ 'button.pay': [3, 1] });
    expect(await elements('&device=mobile')).toEqual({ 'a.help': [2, 1] });
    expect(await elements('&device=tablet')).toEqual({ 'button.pay': [1, 1] });
  });

  it('from and to choose the window: from inclusive, to exclusive', async () => {
    expect(await elements(`&from=${iso(now - 30 * DAY)}`)).toEqual({ 'button.pay': [4, 2], 'a.help': [2, 1], 'input.coupon': [1, 1] });
    expect(await elements(`&from=${iso(now - 30 * DAY)}&to=${iso(now - DAY)}`)).toEqual({ 'input.coupon': [1, 1] });
    // The coupon signal came one second after its pageview: a window that ends at it leaves it out.
    expect(await elements(`&from=${iso(now - 30 * DAY)}&to=${iso(now - 12 * DAY + 1000)}`)).toEqual({});
    expect(await elements(`&from=${iso(now - 12 * DAY + 1000)}&to=${iso(now - DAY)}`)).toEqual({ 'input.coupon': [1, 1] });
    // Only `to`: the 7 days before it.
    expect(await elements(`&to=${iso(now - 10 * DAY)}`)).toEqual({ 'input.coupon': [1, 1] });
    expect(await elements(`&to=${iso(now - 60 * MIN)}`)).toEqual({ 'button.pay': [4, 2], 'a.help': [2, 1] });
  });

  it('device and window combine', async () => {
    expect(await elements(`&device=desktop&from=${iso(now - 30 * DAY)}`)).toEqual({ 'button.pay': [3, 1], 'input.coupon': [1, 1] });
    expect(await elements(`&device=mobile&from=${iso(now - 30 * DAY)}&to=${iso(now - DAY)}`)).toEqual({});
  });

  it('bad values are 400 invalid_input naming the parameter', async () => {
    const url = (params: string) => `/v1/query/elements?page=/checkout${params}`;
    const key = org.keys.secret;
    await expectInvalid(h, key, url('&device=phone'), 'device');
    await expectInvalid(h, key, url('&device='), 'device');
    await expectInvalid(h, key, url('&from=yesterday'), 'from');
    await expectInvalid(h, key, url('&from=2026-11-01'), 'from');
    await expectInvalid(h, key, url('&to=2026-11-01T25:00:00Z'), 'to');
    // A form the schema accepts but no clock can read.
    await expectInvalid(h, key, url(`&from=${encodeURIComponent('2026-11-01T12:00:00+01')}`), 'from');
    // Bounded like trends' days: at most 90 days back.
    await expectInvalid(h, key, url(`&from=${iso(now - 91 * DAY)}`), 'from');
    await expectInvalid(h, key, url(`&to=${iso(now - 5 * DAY)}&from=${iso(now - 4 * DAY)}`), 'to');
    await expectInvalid(h, key, url(`&from=${iso(now - DAY)}&to=${iso(now - DAY)}`), 'to');
  });
});
