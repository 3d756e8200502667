// No request log line names a person: the privacy routes carry the subject (visitor_id or
// user_ref) in the query string, the issue list may filter by an assignee's email, and sign-in
// carries an email in its body. The harness keeps every line at every level (trace), and the
// identifiers must be in none of them. Both dialects.
import { expect, it } from 'vitest';
import { bearer, eachDialect, useHarness, type Org } from './helpers/harness.ts';
import { redactQueryKeys } from '../src/http/logging.ts';

eachDialect('the request log names no one', ({ name, skip }) => {
  const h = useHarness(name, { raisedLimits: true, captureLogs: true });
  const VID = 'f00dfeedf00dfeedf00dfeedf00dfeed';
  const USER_REF = 'person-ref-7f3a9c';
  const SID = 'c0ffee00c0ffee00c0ffee00c0ffee00';
  const ASSIGNEE = 'dana.assignee@shop.example';
  let org: Org;

  it.skipIf(skip)('privacy export and erasure, an assignee filter and sign-ins leave no identifier in the log', async () => {
    org = await h.org('Logged privacy');
    const now = h.clock.now();
    const ingest = await h.app.inject({
      method: 'POST', url: '/v1/ingest',
      payload: { key: org.keys.publishable, sid: SID, vid: VID, url: 'https://shop.example/', ts: now, events: [{ type: 'pageview', ts: now - 1000, page: '/' }, { type: 'identify', ts: now - 500, user_ref: USER_REF }] },
    });
    expect(ingest.statusCode, ingest.body).toBe(202);

    const site = `site_id=${org.site_id}`;
    const requests = [
      ['GET', `/v1/manage/privacy/export?${site}&visitor_id=${VID}`, 200],
      ['GET', `/v1/manage/privacy/export?user_ref=${USER_REF}&${site}`, 200],
      // The name as the query parser decodes it: still redacted.
      ['GET', `/v1/manage/privacy/export?${site}&visitor%5Fid=${VID}`, 200],
      // A refused request is logged too.
      ['GET', `/v1/manage/privacy/export?${site}&visitor_id=${VID}&user_ref=${USER_REF}`, 400],
      ['DELETE', `/v1/manage/privacy/subject?${site}&user_ref=${encodeURIComponent(USER_REF)}`, 200],
      ['DELETE', `/v1/manage/privacy/subject?visitor_id=${VID}&${site}`, 200],
      ['GET', `/v1/query/issues?${site}&assigned_to=${encodeURIComponent(ASSIGNEE)}`, 200],
    ] as const;
    for (const [method, url, status] of requests) {
      const res = await h.app.inject({ method, url, headers: bearer(org.jwt) });
      expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(status);
    }
    // Sign-in, successful and failed: the email is in the body, never in a line.
    expect((await h.app.inject({ method: 'POST', url: '/v1/auth/login', payload: { email: org.email, password: org.password } })).statusCode).toBe(200);
    expect((await h.app.inject({ method: 'POST', url: '/v1/auth/login', payload: { email: org.email, password: 'not-the-password' } })).statusCode).toBe(401);

    const log = h.logs.join('');
    // The request lines are there (so the search below searched something)...
    expect(log).toContain(`/v1/manage/privacy/export?${site}&visitor_id=[redacted]`);
    expect(log).toContain(`/v1/manage/privacy/export?user_ref=[redacted]&${site}`);
    expect(log).toContain(`/v1/manage/privacy/export?${site}&visitor%5Fid=[redacted]`);
    expect(log).toContain(`/v1/manage/privacy/subject?visitor_id=[redacted]&${site}`);
    expect(log).toContain(`/v1/query/issues?${site}&assigned_to=[redacted]`);
    // ...and no identifier is, in any form.
    for (const identifier of [VID, USER_REF, ASSIGNEE, encodeURIComponent(ASSIGNEE), org.email]) {
      expect(log, identifier).not.toContain(identifier);
    }
  });
});

it('redaction keeps every other parameter and the path as they were', () => {
  expect(redactQueryKeys('/v1/manage/privacy/export')).toBe('/v1/manage/privacy/export');
  expect(redactQueryKeys('/v1/x?site_id=s1&user_ref=a%20b&visitor_id=&flag&KEY=k'))
    .toBe('/v1/x?site_id=s1&user_ref=[redacted]&visitor_id=[redacted]&flag&KEY=[redacted]');
  expect(redactQueryKeys('/v1/x?user+ref=1&user_reference=2&my_key=3')).toBe('/v1/x?user+ref=1&user_reference=2&my_key=3');
});
