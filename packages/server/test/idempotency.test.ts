// Idempotency-Key on POST /v1/manage/*: a CI job retrying POST /v1/manage/deploys after a
// timeout records the deploy once. Both dialects.
import { beforeAll, expect, it } from 'vitest';
import { IDEMPOTENCY_ABANDONED_MS, IDEMPOTENCY_TTL_MS, purgeExpiredIdempotencyKeys } from '../src/store/idempotency.ts';
import { bearer, eachDialect, useHarness, type Org } from './helpers/harness.ts';

eachDialect('Idempotency-Key', ({ name, skip }) => {
  const h = useHarness(name, { raisedLimits: true });
  let org: Org;
  beforeAll(async () => { org = await h.org('Idem'); });

  const deploy = (key: string | undefined, body: object, token = org.keys.secret) => h.app.inject({
    method: 'POST', url: `/v1/manage/deploys?site_id=${org.site_id}`,
    headers: { ...bearer(token), 'content-type': 'application/json', ...(key === undefined ? {} : { 'idempotency-key': key }) },
    payload: body,
  });
  const deploys = async (version: string) => (await h.store.db.selectFrom('deploys').select('id').where('site_id', '=', org.site_id).where('version', '=', version).execute()).length;

  it.skipIf(skip)('a retry with the same key and body replays the first answer and records the deploy once', async () => {
    const first = await deploy('ci-123-deploy', { version: 'v1.0.0', commit_sha: 'abc' });
    expect(first.statusCode).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    h.clock.advance(30_000);
    // The same body with its keys in another order is the same request.
    const retry = await deploy('ci-123-deploy', { commit_sha: 'abc', version: 'v1.0.0' });
    expect(retry.statusCode).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.json()).toEqual(first.json());
    expect(await deploys('v1.0.0')).toBe(1);
    // One audit row, for the one deploy.
    const audits = await h.store.db.selectFrom('audit_log').select('id').where('org_id', '=', org.org_id).where('action', '=', 'deploy.recorded').execute();
    expect(audits).toHaveLength(1);
  });

  it.skipIf(skip)('the same key with another body is 409 idempotency_conflict and does nothing', async () => {
    expect((await deploy('ci-456', { version: 'v2.0.0' })).statusCode).toBe(201);
    const other = await deploy('ci-456', { version: 'v2.0.1' });
    expect(other.statusCode).toBe(409);
    expect(other.json().error.code).toBe('idempotency_conflict');
    expect(await deploys('v2.0.1')).toBe(0);
  });

  it.skipIf(skip)('keys are per credential: another key or a user token with the same key does the work', async () => {
    expect((await deploy('shared-key', { version: 'v3.0.0' })).statusCode).toBe(201);
    const mine = await deploy('shared-key', { version: 'v3.0.0' }, org.jwt);
    expect(mine.statusCode).toBe(201);
    expect(mine.headers['idempotent-replayed']).toBeUndefined();
    expect(await deploys('v3.0.0')).toBe(2);
  });

  it.skipIf(skip)('without the header nothing changes; a failed request frees its key; a bad key is 400', async () => {
    expect((await deploy(undefined, { version: 'v4' })).statusCode).toBe(201);
    expect((await deploy(undefined, { version: 'v4' })).statusCode).toBe(201);
    expect(await deploys('v4')).toBe(2);

    const refused = await deploy('fix-and-retry', { version: 'v5', deployed_at: new Date(h.clock.now() + 3_600_000).toISOString() });
    expect(refused.statusCode).toBe(400);
    const fixed = await deploy('fix-and-retry', { version: 'v5' });
    expect(fixed.statusCode).toBe(201);
    expect(fixed.headers['idempotent-replayed']).toBeUndefined();

    for (const bad of ['', 'x'.repeat(256), 'has space', 'ünïcode']) {
      const res = await h.app.inject({
        method: 'POST', url: `/v1/manage/deploys?site_id=${org.site_id}`,
        headers: { ...bearer(org.keys.secret), 'content-type': 'application/json', 'idempotency-key': bad }, payload: { version: 'v6' },
      });
      expect(res.statusCode, JSON.stringify(bad)).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'invalid_input', details: { field: 'Idempotency-Key' } });
    }
    expect(await deploys('v6')).toBe(0);
  });

  it.skipIf(skip)('a key still being processed is 409; one abandoned by a dead process is taken over after a minute', async () => {
    // What a request that is still running (or whose process died) leaves: a claim with no answer.
    const credential = `key:${(await h.store.db.selectFrom('api_keys').select('id').where('org_id', '=', org.org_id).where('key_type', '=', 'secret').executeTakeFirstOrThrow()).id}`;
    await h.store.db.insertInto('idempotency_keys').values({ credential, key: 'running', request_hash: 'x', status_code: null, response: null, created_at: h.clock.now() }).execute();
    const busy = await deploy('running', { version: 'v7' });
    expect(busy.statusCode).toBe(409);
    expect(busy.json().error.code).toBe('idempotency_conflict');
    h.clock.advance(IDEMPOTENCY_ABANDONED_MS);
    expect((await deploy('running', { version: 'v7' })).statusCode).toBe(201);
    expect(await deploys('v7')).toBe(1);
  });

  it.skipIf(skip)('after 24 hours the key is forgotten (the work is done again) and housekeeping removes old answers', async () => {
    expect((await deploy('daily', { version: 'v8' })).statusCode).toBe(201);
    h.clock.advance(IDEMPOTENCY_TTL_MS - 1000);
    expect((await deploy('daily', { version: 'v8' })).headers['idempotent-replayed']).toBe('true');
    h.clock.advance(1000);
    const again = await deploy('daily', { version: 'v8' });
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(await deploys('v8')).toBe(2);

    h.clock.advance(IDEMPOTENCY_TTL_MS + 1);
    const removed = await purgeExpiredIdempotencyKeys(h.store.db, h.clock.now());
    expect(removed).toBeGreaterThan(0);
    const left = await h.store.db.selectFrom('idempotency_keys').select('key').where('created_at', '<', h.clock.now() - IDEMPOTENCY_TTL_MS).execute();
    expect(left).toEqual([]);
  });

  it.skipIf(skip)('a replayed key creation shows the same key again, and the store keeps the answer sealed, never the raw key', async () => {
    const { jwt } = await h.user(org, 'admin');
    const send = () => h.app.inject({ method: 'POST', url: '/v1/manage/keys', headers: { ...bearer(jwt), 'idempotency-key': 'mint-once' }, payload: { key_type: 'secret', site_id: org.site_id, scopes: ['query:read'] } });
    const first = await send();
    const second = await send();
    expect(first.statusCode).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.json().data.key).toBe(first.json().data.key);
    const rows = await h.store.db.selectFrom('idempotency_keys').selectAll().where('key', '=', 'mint-once').execute();
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(first.json().data.key);
  });

  it.skipIf(skip)('works on every POST under /v1/manage, e.g. creating an alert rule', async () => {
    const body = { site_id: org.site_id, name: 'Once', trigger_type: 'budget', threshold: 10 };
    const send = () => h.app.inject({ method: 'POST', url: '/v1/manage/alert-rules', headers: { ...bearer(org.keys.secret), 'idempotency-key': 'rule-once' }, payload: body });
    const first = await send();
    const second = await send();
    expect(first.statusCode).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.json().data.id).toBe(first.json().data.id);
    const rules = await h.store.db.selectFrom('alert_rules').select('id').where('site_id', '=', org.site_id).where('name', '=', 'Once').execute();
    expect(rules).toHaveLength(1);
  });
});
