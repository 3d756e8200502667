import { Type, type TSchema } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';

export interface ErrorBody {
  code: string;
  message: string;
  status: number;
  details?: Record<string, unknown>;
  duck?: string;
}

export const ok = <T>(data: T) => ({ data, error: null });

/** The serialized envelope of each answer object the read cache keeps (store/read-cache.ts). */
const serializedAnswers = new WeakMap<object, string>();

/**
 * ok(data) serialized by the route's response schema, once per answer object: a read cache hit
 * returns the same object, so it is sent without being serialized again. The route's
 * schema still decides every byte (the first serialization is Fastify's own).
 */
export function okOnce(reply: FastifyReply, data: object): FastifyReply {
  let body = serializedAnswers.get(data);
  if (body === undefined) {
    // A response schema's serializer (every route here has one) always makes a string.
    body = String(reply.serialize(ok(data)));
    serializedAnswers.set(data, body);
  }
  return reply.type('application/json; charset=utf-8').send(body);
}

/** Response schema of a success: the data schema is an allow-list of what is sent. */
export const Envelope = <T extends TSchema>(data: T) =>
  Type.Object({ data, error: Type.Null() });

export const ErrorEnvelope = Type.Object({
  data: Type.Null(),
  error: Type.Object({
    code: Type.String(),
    message: Type.String(),
    status: Type.Integer(),
    details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    duck: Type.Optional(Type.String()),
  }),
});
