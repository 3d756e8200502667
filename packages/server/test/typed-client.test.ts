// A client generated from the OpenAPI document (openapi-typescript types, openapi-fetch) drives
// a small scenario against a real server on loopback: it must compile against the committed
// types (npm test type-checks the tests), the types must be what the served document generates
// today, and the calls must work as typed. A route whose contract changes without its types
// fails here, and so does a client that the document would mislead.
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import createClient from 'openapi-fetch';
import { beforeAll, expect, it } from 'vitest';
import type { paths } from '../../dashboard/src/api/openapi.d.ts';
import { API_TYPES_FILE, generateApiTypes } from './client/types.ts';
import { eachDialect, useHarness, type Org } from './helpers/harness.ts';

it('the committed API types are what the served document generates (npm run client:types -w @mallard/server)', async () => {
  // The dashboard's API shapes (packages/dashboard/src/api/types.ts) are aliases into this file, and this client's too.
  expect(readFileSync(API_TYPES_FILE, 'utf8')).toBe(await generateApiTypes());
});

eachDialect('a typed client generated from the OpenAPI document', ({ name, skip }) => {
  const h = useHarness(name, { wallClock: true });
  let org: Org;
  let baseUrl: string;
  beforeAll(async () => {
    org = await h.org('Typed');
    await h.app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
    // The harness closes the app, and with it this listener.
  });

  it.skipIf(skip)('logs in, reads, creates and deletes a webhook, ingests and gets a typed error', async () => {
    const client = createClient<paths>({ baseUrl });

    const login = await client.POST('/v1/auth/login', { body: { email: org.email, password: org.password } });
    expect(login.response.status).toBe(200);
    const token = login.data!.data.token;
    const authed = createClient<paths>({ baseUrl, headers: { authorization: `Bearer ${token}` } });

    const who = await authed.GET('/v1/query/whoami');
    expect(who.data?.data.org.id).toBe(org.org_id);
    expect(who.response.headers.get('ratelimit-limit')).toMatch(/^\d+$/);

    const created = await authed.POST('/v1/manage/webhooks', {
      body: { site_id: org.site_id, url: 'http://127.0.0.1:9/typed', events: ['issue.created'] },
    });
    expect(created.response.status).toBe(201);
    const hook = created.data!.data;
    expect(hook.secret).toMatch(/^whsec_/);
    const listed = await authed.GET('/v1/manage/webhooks', { params: { query: { site_id: org.site_id } } });
    expect(listed.data?.data.webhooks.map((w) => w.id)).toContain(hook.id);

    const ingest = createClient<paths>({ baseUrl });
    const sent = await ingest.POST('/v1/ingest', {
      body: { key: org.keys.publishable, sid: 'a'.repeat(32), ts: Date.now(), events: [{ type: 'pageview', ts: Date.now(), page: '/typed' }] },
    });
    expect(sent.response.status).toBe(202);

    // Parameters with defaults may be left out: the generated type makes them optional.
    const flows = await authed.GET('/v1/query/flows', { params: { query: { site_id: org.site_id } } });
    expect(flows.response.status).toBe(200);

    const bad = await authed.GET('/v1/query/issues/{issue_id}', { params: { path: { issue_id: 'not-a-uuid' }, query: { site_id: org.site_id } } });
    expect(bad.response.status).toBe(400);
    expect(bad.error?.error.code).toBe('invalid_uuid');

    const removed = await authed.DELETE('/v1/manage/webhooks/{id}', { params: { path: { id: hook.id } } });
    expect(removed.data?.data).toEqual({ id: hook.id, deleted: true });
  });
});
