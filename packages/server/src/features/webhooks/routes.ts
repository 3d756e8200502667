// Webhooks: endpoints a site's events are signed and sent to (Standard Webhooks). Secrets are
// sealed at rest (AES-256-GCM) and never returned after creation; targets must be public.
import { Type } from '@sinclair/typebox';
import { v7 as uuidv7 } from 'uuid';
import type { App } from '../../http/app-types.ts';
import { recordAudit } from '../../audit/record.ts';
import { iso, isoOrNull } from '../../clock.ts';
import { checkTarget } from '../../delivery/targets.ts';
import { generateWebhookSecret } from '../../delivery/signing.ts';
import { attemptDelivery } from '../../delivery/worker.ts';
import { EVENT_TYPES } from '../../events/outbox.ts';
import type { AuthContext } from '../../domain/context.ts';
import { AppError } from '../../domain/errors.ts';
import { Envelope, ok } from '../../http/envelope.ts';
import { Deleted, IsoTime, PagingQuery, Uuid } from '../../domain/schema-parts.ts';
import { resolveSite } from '../../domain/tenancy.ts';
import type { Store } from '../../store/db.ts';
import type { WebhookDeliveriesTable, WebhooksTable } from '../../store/tables.ts';

const Events = Type.Array(Type.Union(EVENT_TYPES.map((e) => Type.Literal(e))), { minItems: 1, maxItems: EVENT_TYPES.length, uniqueItems: true });
const WebhookRecord = Type.Object({
  id: Uuid, site_id: Uuid, url: Type.String(), events: Type.Array(Type.String()), enabled: Type.Boolean(), created_at: IsoTime, updated_at: IsoTime,
});
const Delivery = Type.Record(Type.String(), Type.Unknown());
const read = { surface: 'manage', scopes: ['manage:write', 'webhook:write'], role: 'viewer' } as const;
const write = { ...read, role: 'admin' } as const;
const Params = Type.Object({ id: Type.String() });

const toWebhook = (w: WebhooksTable) => ({
  id: w.id, site_id: w.site_id, url: w.url, events: JSON.parse(w.events) as string[], enabled: w.enabled === 1,
  created_at: iso(w.created_at), updated_at: iso(w.updated_at),
});

const toDelivery = (d: WebhookDeliveriesTable, attempts: { attempt: number; status_code: number | null; latency_ms: number; error: string | null; created_at: number }[] = []) => ({
  id: d.id, webhook_id: d.webhook_id, event_type: d.event_type, status: d.status, attempts: d.attempts,
  next_attempt_at: isoOrNull(d.next_attempt_at), last_status_code: d.last_status_code, last_error: d.last_error,
  delivered_at: isoOrNull(d.delivered_at), created_at: iso(d.created_at), updated_at: iso(d.updated_at),
  payload: JSON.parse(d.payload),
  attempt_log: attempts.map((a) => ({ attempt: a.attempt, status_code: a.status_code, latency_ms: a.latency_ms, error: a.error, at: iso(a.created_at) })),
});

/** The attempt log in the order it happened, numbered by position: a manual retry starts a
 * fresh series (stored attempt numbers restart at 1), yet the log keeps counting. */
const inOrder = <T extends { attempt: number }>(attempts: T[]) => attempts.map((a, i) => ({ ...a, attempt: i + 1 }));

/** A webhook the credential may manage: in its org, and its site for a site-scoped key. */
async function webhookInScope(store: Store, auth: AuthContext, id: string) {
  let query = store.db.selectFrom('webhooks').innerJoin('sites', 'sites.id', 'webhooks.site_id').selectAll('webhooks')
    .where('webhooks.id', '=', id.toLowerCase()).where('sites.org_id', '=', auth.org.id).where('sites.deleted_at', 'is', null);
  if (auth.site) query = query.where('webhooks.site_id', '=', auth.site.id);
  const hook = await query.executeTakeFirst();
  if (!hook) throw new AppError('not_found', 'Webhook not found');
  return hook;
}

export async function webhookRoutes(app: App) {
  const { store, clock, secrets, targets, config } = app.services;
  const deliveryDeps = { store, clock, secrets, config, policy: targets };

  app.get('/manage/webhooks', {
    config: { access: read },
    schema: {
      tags: ['webhooks'], summary: 'List the site\'s webhooks (never their secrets)',
      querystring: Type.Object({ site_id: Type.Optional(Type.String({ maxLength: 64 })) }),
      response: { 200: Envelope(Type.Object({ webhooks: Type.Array(WebhookRecord) })) },
    },
  }, async (request) => {
    const site = await resolveSite({ db: store.db, auth: request.auth! }, request.query.site_id);
    const rows = await store.db.selectFrom('webhooks').selectAll().where('site_id', '=', site.id).orderBy('created_at').orderBy('id').execute();
    return ok({ webhooks: rows.map(toWebhook) });
  });

  app.post('/manage/webhooks', {
    config: { access: write },
    schema: {
      tags: ['webhooks'], summary: 'Register a webhook; a generated secret is shown once',
      body: Type.Object({
        site_id: Type.Optional(Type.String({ maxLength: 64 })),
        url: Type.String({ minLength: 1, maxLength: 2048 }),
        events: Events,
        secret: Type.Optional(Type.String({ minLength: 16, maxLength: 256 })),
        enabled: Type.Optional(Type.Boolean()),
      }, { additionalProperties: false }),
      response: { 201: Envelope(Type.Intersect([WebhookRecord, Type.Object({ secret: Type.Optional(Type.String({ description: 'Only when generated, only here' })) })])) },
    },
  }, async (request, reply) => {
    const auth = request.auth!;
    const site = await resolveSite({ db: store.db, auth: auth }, request.body.site_id);
    await checkTarget(request.body.url, targets);
    const now = clock.now();
    const secret = request.body.secret ?? generateWebhookSecret();
    const row: WebhooksTable = {
      id: uuidv7(), site_id: site.id, url: request.body.url, events: JSON.stringify(request.body.events),
      secret_enc: secrets.encrypt(secret), enabled: request.body.enabled === false ? 0 : 1, created_at: now, updated_at: now,
    };
    await store.db.transaction().execute(async (trx) => {
      await trx.insertInto('webhooks').values(row).execute();
      await recordAudit(trx, auth, { action: 'webhook.created', targetType: 'webhook', targetId: row.id, siteId: site.id, details: { events: request.body.events } }, now);
    });
    reply.code(201);
    return ok(request.body.secret ? toWebhook(row) : { ...toWebhook(row), secret });
  });

  app.patch('/manage/webhooks/:id', {
    config: { access: write },
    schema: {
      tags: ['webhooks'], summary: 'Change a webhook\'s URL, events or enabled flag', params: Params,
      body: Type.Object({ url: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })), events: Type.Optional(Events), enabled: Type.Optional(Type.Boolean()) }, { additionalProperties: false, minProperties: 1 }),
      response: { 200: Envelope(WebhookRecord) },
    },
  }, async (request) => {
    const auth = request.auth!;
    const hook = await webhookInScope(store, auth, request.params.id);
    if (request.body.url !== undefined) await checkTarget(request.body.url, targets);
    const now = clock.now();
    const next: WebhooksTable = {
      ...hook,
      url: request.body.url ?? hook.url,
      events: request.body.events ? JSON.stringify(request.body.events) : hook.events,
      enabled: request.body.enabled === undefined ? hook.enabled : request.body.enabled ? 1 : 0,
      updated_at: now,
    };
    await store.db.transaction().execute(async (trx) => {
      await trx.updateTable('webhooks').set({ url: next.url, events: next.events, enabled: next.enabled, updated_at: now }).where('id', '=', hook.id).execute();
      await recordAudit(trx, auth, { action: 'webhook.updated', targetType: 'webhook', targetId: hook.id, siteId: hook.site_id, details: { fields: Object.keys(request.body) } }, now);
    });
    return ok(toWebhook(next));
  });

  app.delete('/manage/webhooks/:id', {
    config: { access: write },
    schema: { tags: ['webhooks'], summary: 'Delete a webhook', params: Params, response: { 200: Envelope(Deleted) } },
  }, async (request) => {
    const auth = request.auth!;
    const hook = await webhookInScope(store, auth, request.params.id);
    const now = clock.now();
    await store.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('webhooks').where('id', '=', hook.id).execute();
      await recordAudit(trx, auth, { action: 'webhook.deleted', targetType: 'webhook', targetId: hook.id, siteId: hook.site_id }, now);
    });
    return ok({ id: hook.id, deleted: true });
  });

  app.get('/manage/webhooks/:id/deliveries', {
    config: { access: read },
    schema: {
      tags: ['webhooks'], summary: 'Deliveries to this webhook, newest first, with every attempt', params: Params,
      querystring: Type.Object({ status: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')])), ...PagingQuery }),
      response: { 200: Envelope(Type.Object({ deliveries: Type.Array(Delivery), total: Type.Integer(), offset: Type.Integer(), limit: Type.Integer() })) },
    },
  }, async (request) => {
    const hook = await webhookInScope(store, request.auth!, request.params.id);
    const offset = request.query.offset ?? 0;
    const limit = request.query.limit ?? 50;
    let query = store.db.selectFrom('webhook_deliveries').where('webhook_id', '=', hook.id);
    if (request.query.status) query = query.where('status', '=', request.query.status);
    const [rows, count] = await Promise.all([
      query.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).offset(offset).execute(),
      query.select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow(),
    ]);
    const attempts = rows.length
      ? await store.db.selectFrom('delivery_attempts').selectAll().where('delivery_id', 'in', rows.map((r) => r.id)).orderBy('created_at').orderBy('id').execute()
      : [];
    return ok({ deliveries: rows.map((r) => toDelivery(r, inOrder(attempts.filter((a) => a.delivery_id === r.id)))), total: Number(count.n), offset, limit });
  });

  app.post('/manage/webhooks/:id/deliveries/:delivery_id/retry', {
    config: { access: { ...write, bodyRequired: false } },
    schema: {
      tags: ['webhooks'], summary: 'Send a delivery again now (also a failed one)',
      params: Type.Object({ id: Type.String(), delivery_id: Type.String() }), response: { 200: Envelope(Delivery) },
    },
  }, async (request) => {
    const hook = await webhookInScope(store, request.auth!, request.params.id);
    const delivery = await store.db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', hook.id)
      .where('id', '=', request.params.delivery_id.toLowerCase()).executeTakeFirst();
    if (!delivery) throw new AppError('not_found', 'Delivery not found');
    // A manual retry starts a fresh series of attempts under the same webhook-id.
    const result = await attemptDelivery(deliveryDeps, { ...delivery, attempts: 0 });
    const attempts = await store.db.selectFrom('delivery_attempts').selectAll().where('delivery_id', '=', delivery.id).orderBy('created_at').orderBy('id').execute();
    return ok(toDelivery(result, inOrder(attempts)));
  });

  app.post('/manage/webhooks/:id/test', {
    config: { access: { ...write, bodyRequired: false } },
    schema: { tags: ['webhooks'], summary: 'Send a signed test event now and report the outcome', params: Params, response: { 200: Envelope(Delivery) } },
  }, async (request) => {
    const hook = await webhookInScope(store, request.auth!, request.params.id);
    const now = clock.now();
    const payload = JSON.stringify({ type: 'webhook.test', timestamp: iso(now), site_id: hook.site_id, data: { webhook_id: hook.id, message: 'Quack! This is a test from Mallard.' } });
    const delivery: WebhookDeliveriesTable = {
      id: uuidv7(), webhook_id: hook.id, site_id: hook.site_id, event_type: 'webhook.test', event_id: uuidv7(), payload,
      status: 'pending', attempts: 0, next_attempt_at: null, last_status_code: null, last_error: null,
      created_at: now, updated_at: now, delivered_at: null,
    };
    await store.db.insertInto('webhook_deliveries').values(delivery).execute();
    const result = await attemptDelivery(deliveryDeps, delivery, { final: true });
    const attempts = await store.db.selectFrom('delivery_attempts').selectAll().where('delivery_id', '=', delivery.id).execute();
    return ok(toDelivery(result, attempts));
  });
}
