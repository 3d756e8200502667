// The HTTP face of a catalog operation (domain/operation.ts): the route is derived from the
// operation's `http` binding, access rule, input parts and output, so none of them is written
// twice. The route's access rule is the operation's plus its surface; the hooks in app.ts keep
// DESIGN.md's order (401s, body errors, id format, then the 403s, decided by the catalog's
// checkAccess), and the handler runs the operation through the runner. What the document says
// beyond the schemas (extra error codes, an exactly-one-of rule) comes from the binding too.
// http/catalog-routes.ts registers the route of every catalog operation that has a binding.
import { Readable } from 'node:stream';
import type { FastifySchema } from 'fastify';
import { runOperation, type Download, type Operation } from '../domain/operation.ts';
import type { App } from './app-types.ts';
import { contextOf } from './context.ts';
import { Envelope, ok, okOnce } from './envelope.ts';
import type { RouteDocs } from './openapi.ts';
import './route-table.ts';

/** Registers the route of an operation that has an `http` binding. */
// Any operation: the route's schemas check the input before the handler runs it.
export function operationRoute(app: App, op: Operation<any, any>): void {
  const binding = op.http;
  if (!binding) throw new Error(`${op.name} has no http binding: it has no route`);
  const { method, path, surface, tags, status = 200, bodyRequired, send, download, errors, exactlyOneOf } = binding;
  const docs: RouteDocs | undefined = errors || exactlyOneOf ? { ...(errors ? { errors } : {}), ...(exactlyOneOf ? { exactlyOneOf } : {}) } : undefined;
  const schema: FastifySchema = {
    tags: [...tags], summary: op.summary,
    ...(op.input.params ? { params: op.input.params } : {}),
    ...(op.input.query ? { querystring: op.input.query } : {}),
    ...(op.input.body ? { body: op.input.body } : {}),
    response: { [status]: download ? { description: download.description, content: { [download.mediaType]: { schema: op.output } } } : Envelope(op.output) },
  };
  // GETs of the query surface are pure reads: their answer may come from the read cache, sent as serialized once (a download is streamed, never kept).
  const cachedAnswer = method === 'GET' && surface === 'query' && !download;
  app.route({
    method, url: path, schema,
    config: { access: { surface, ...op.access, ...(bodyRequired === undefined ? {} : { bodyRequired }) }, operation: op, ...(docs ? { docs } : {}) },
    handler: async (request, reply) => {
      const { params, query, body } = request as { params?: object; query?: object; body?: object };
      // The route's schemas checked every part the operation declares; the input is their fields in one object (a body's
      // site_id over the query's, as on every /manage route). A part it does not declare is not read: an unchecked
      // query string never reaches `run`, and a body the binding lets be absent (`bodyRequired: false`) adds nothing.
      const input = { ...(op.input.query ? query : {}), ...(op.input.body ? body : {}), ...(op.input.params ? params : {}) };
      const data = await runOperation(op, contextOf(request), input);
      if (download) {
        const file = data as Download;
        reply.code(status).header('content-type', `${download.mediaType}; charset=utf-8`).header('content-disposition', `attachment; filename="${file.filename}"`);
        return reply.send(Readable.from(file.chunks));
      }
      if (send === 'json') return reply.code(status).type('application/json; charset=utf-8').send(JSON.stringify(ok(data)));
      if (cachedAnswer) return okOnce(reply, data as object);
      reply.code(status);
      return ok(data);
    },
  });
}
