// Idempotency-Key on POST /v1/manage/*: a retry with the same key and body (same credential,
// within 24 hours) gets the first answer again, marked `Idempotent-Replayed: true`, without the
// work being done twice. The same key with another body, or while the first is still running,
// is 409 idempotency_conflict. Only successful answers are kept: a failed request frees its key.
// Kept answers are sealed like other secrets (AES-256-GCM): some hold a one-time reveal (a new
// key, a webhook secret) that must never sit in the store in the clear.
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../domain/errors.ts';
import { claimIdempotencyKey, releaseIdempotencyKey, storeIdempotentAnswer } from '../store/idempotency.ts';
import type { App } from './app-types.ts';

const HEADER = 'idempotency-key';
const KEY_FORMAT = /^[\x21-\x7e]{1,255}$/;

declare module 'fastify' {
  interface FastifyRequest { idempotency?: { credential: string; key: string } }
}

/** JSON with object keys sorted, so the same body sent with its keys in another order matches. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function registerIdempotency(app: App) {
  const claimKey = async (request: FastifyRequest, reply: FastifyReply) => {
    const raw = request.headers[HEADER];
    if (request.method !== 'POST' || raw === undefined || !request.auth) return;
    const key = Array.isArray(raw) ? raw[0] : raw;
    if (!KEY_FORMAT.test(key)) {
      throw new AppError('invalid_input', 'Idempotency-Key must be 1 to 255 printable ASCII characters', { field: 'Idempotency-Key', reason: 'bad format' });
    }
    const auth = request.auth;
    const credential = auth.keyId ? `key:${auth.keyId}` : `user:${auth.user!.id}`;
    const hash = createHash('sha256').update(`${request.method} ${request.url}\n${canonical(request.body ?? null)}`).digest('hex');
    const { store, clock, secrets } = app.services;
    const claim = await claimIdempotencyKey(store.db, credential, key, hash, clock.now());
    if (claim.kind === 'mismatch') throw new AppError('idempotency_conflict', 'This Idempotency-Key was used with a different request');
    if (claim.kind === 'in_progress') throw new AppError('idempotency_conflict', 'A request with this Idempotency-Key is still being processed; retry shortly');
    if (claim.kind === 'replay') {
      return reply.code(claim.statusCode).header('content-type', 'application/json; charset=utf-8').header('idempotent-replayed', 'true').send(secrets.decrypt(claim.response));
    }
    request.idempotency = { credential, key };
  };

  const keepAnswer = async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const claim = request.idempotency;
    if (!claim) return payload;
    request.idempotency = undefined;
    const { store, secrets } = app.services;
    if (reply.statusCode < 300 && typeof payload === 'string') await storeIdempotentAnswer(store.db, claim.credential, claim.key, reply.statusCode, secrets.encrypt(payload));
    else await releaseIdempotencyKey(store.db, claim.credential, claim.key);
    return payload;
  };

  // Only the manage surface's POST routes take the header, so only they carry the hooks (first,
  // as app-wide hooks would run): no other request pays for them.
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.includes('POST') || route.config?.access?.surface !== 'manage') return;
    route.preHandler = [claimKey, ...[route.preHandler ?? []].flat()];
    route.onSend = [keepAnswer, ...[route.onSend ?? []].flat()];
  });
}
