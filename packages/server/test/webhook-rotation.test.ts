// POST /v1/manage/webhooks/{id}/rotate-secret: the new secret once; during the grace period
// every delivery is signed with both secrets (a receiver on either verifies it), then with the
// new one only. Both dialects, against a receiver on 127.0.0.1.
import { beforeAll, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { sign } from '../src/delivery/signing.ts';
import { bearer, eachDialect, useHarness, type Org } from './helpers/harness.ts';
import { deliveryOptions, deliverySuiteHooks, installLoopbackGuard, Receiver, type Received } from './helpers/delivery-kit.ts';

installLoopbackGuard();
const HOUR = 3_600_000;

eachDialect('webhook secret rotation', ({ name, skip }) => {
  let receiver: Receiver;
  beforeAll(async () => { receiver = await new Receiver().start(); });
  const h = useHarness(name, deliveryOptions());
  deliverySuiteHooks(h, () => receiver);
  let org: Org;
  beforeAll(async () => { org = await h.org('Rotate'); });

  const create = async (path: string) => {
    const res = await h.app.inject({ method: 'POST', url: '/v1/manage/webhooks', headers: bearer(org.keys.secret), payload: { url: receiver.url(path), events: ['deploy.recorded'] } });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().data as { id: string; secret: string };
  };
  const rotate = (id: string, payload?: object, token = org.keys.secret) => h.app.inject({
    method: 'POST', url: `/v1/manage/webhooks/${id}/rotate-secret`, headers: bearer(token), ...(payload ? { payload } : {}),
  });
  const sendTest = async (id: string, path: string): Promise<Received> => {
    const before = receiver.to(path).length;
    const res = await h.app.inject({ method: 'POST', url: `/v1/manage/webhooks/${id}/test`, headers: bearer(org.keys.secret) });
    expect(res.statusCode, res.body).toBe(200);
    expect(receiver.to(path)).toHaveLength(before + 1);
    return receiver.to(path).at(-1)!;
  };
  /** The signatures of a delivery, checked by hand (the clock may be far from real time). */
  const signedWith = (got: Received, secret: string) => {
    const expected = sign(secret, String(got.headers['webhook-id']), Number(got.headers['webhook-timestamp']), got.body);
    return String(got.headers['webhook-signature']).split(' ').includes(expected);
  };

  it.skipIf(skip)('returns a new generated secret once; both secrets sign during the grace period, only the new one after', async () => {
    const hook = await create('/r1');
    const res = await rotate(hook.id);
    expect(res.statusCode, res.body).toBe(200);
    const rotated = res.json().data;
    expect(rotated.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{32}$/);
    expect(rotated.secret).not.toBe(hook.secret);
    expect(rotated.rotation_ends_at).toBe(new Date(h.clock.now() + 24 * HOUR).toISOString());
    // The list never shows a secret, but says the rotation is under way.
    const list = await h.app.inject({ method: 'GET', url: '/v1/manage/webhooks', headers: bearer(org.keys.secret) });
    expect(list.body).not.toContain(rotated.secret);
    expect(list.body).not.toContain(hook.secret);
    expect(list.json().data.webhooks[0].rotation_ends_at).toBe(rotated.rotation_ends_at);

    // During the grace period: a receiver still on the old secret and one already on the new verify.
    const during = await sendTest(hook.id, '/r1');
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(new Webhook(hook.secret).verify(during.body, during.headers as Record<string, string>)).toMatchObject({ type: 'webhook.test' });
    expect(new Webhook(rotated.secret).verify(during.body, during.headers as Record<string, string>)).toMatchObject({ type: 'webhook.test' });

    h.clock.advance(24 * HOUR);
    const after = await sendTest(hook.id, '/r1');
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(signedWith(after, rotated.secret)).toBe(true);
    expect(signedWith(after, hook.secret)).toBe(false);
    const listed = await h.app.inject({ method: 'GET', url: '/v1/manage/webhooks', headers: bearer(org.keys.secret) });
    expect(listed.json().data.webhooks.find((w: { id: string }) => w.id === hook.id).rotation_ends_at).toBe(rotated.rotation_ends_at);
  });

  it.skipIf(skip)('takes a given secret (never echoed) and grace_hours; 0 drops the old secret at once; audited without the secret', async () => {
    const hook = await create('/r2');
    const given = 'my-own-rotated-secret-0123456789';
    const res = await rotate(hook.id, { secret: given, grace_hours: 0 });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ id: hook.id, rotation_ends_at: null });
    // A secret the caller chose is never echoed, as at creation: no secret field, nowhere in the body.
    expect(res.json().data).not.toHaveProperty('secret');
    expect(res.body).not.toContain(given);
    const got = await sendTest(hook.id, '/r2');
    expect(String(got.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(new Webhook(Buffer.from(given).toString('base64')).verify(got.body, got.headers as Record<string, string>)).toMatchObject({ type: 'webhook.test' });

    const short = await rotate(hook.id, { grace_hours: 2 });
    expect(short.json().data.rotation_ends_at).toBe(new Date(h.clock.now() + 2 * HOUR).toISOString());
    const both = await sendTest(hook.id, '/r2');
    expect(signedWith(both, given)).toBe(true);
    expect(signedWith(both, short.json().data.secret)).toBe(true);

    const rows = await h.store.db.selectFrom('audit_log').selectAll().where('target_id', '=', hook.id).where('action', '=', 'webhook.secret_rotated').execute();
    expect(rows).toHaveLength(2);
    expect(JSON.stringify(rows)).not.toContain(given);
    // Stored sealed: neither secret in the clear in the webhook's row.
    const stored = await h.store.db.selectFrom('webhooks').selectAll().where('id', '=', hook.id).executeTakeFirstOrThrow();
    expect(JSON.stringify(stored)).not.toContain(given);
    expect(JSON.stringify(stored)).not.toContain(short.json().data.secret);
  });

  it.skipIf(skip)('bad input is 400; another org\'s webhook is 404; a key without webhook rights is 403', async () => {
    const hook = await create('/r3');
    for (const body of [{ grace_hours: 169 }, { grace_hours: -1 }, { secret: 'short' }, { colour: 'red' }]) {
      const res = await rotate(hook.id, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().error.code).toBe('invalid_input');
    }
    const other = await h.org('Rotate B');
    const cross = await rotate(hook.id, undefined, other.keys.secret);
    expect(cross.statusCode).toBe(404);
    expect(cross.json().error.code).toBe('not_found');
    const readOnly = await h.key(org, { siteId: org.site_id, scopes: ['query:read'] });
    expect((await rotate(hook.id, undefined, readOnly.key)).json().error.code).toBe('missing_scope');
  });
});
