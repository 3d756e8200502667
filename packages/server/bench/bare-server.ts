// The baselines: a bare Fastify route that parses the same JSON body as ingest and answers 202,
// a bare GET route answering a small JSON envelope (the read bench's baseline), and a bare GET
// route sending a prebuilt JSON body of a given number of bytes (what sending a large answer
// costs by itself, for the read routes whose answers are large).
import Fastify from 'fastify';

const app = Fastify({ bodyLimit: 1024 * 1024 });
app.post('/v1/ingest', async (request, reply) => {
  const body = request.body as { events: unknown[] };
  reply.code(202);
  return { data: { accepted: body.events.length, rejected: 0, rejections: [] }, error: null };
});
app.get('/v1/query/bare', async () => ({ data: { ok: true, site_id: '00000000-0000-7000-8000-000000000001' }, error: null }));
const bodies = new Map<number, string>();
app.get<{ Params: { bytes: string } }>('/v1/query/bare-bytes/:bytes', async (request, reply) => {
  const bytes = Math.max(40, Math.min(16 * 1024 * 1024, Number(request.params.bytes) || 0));
  let body = bodies.get(bytes);
  if (body === undefined) {
    const frame = '{"data":{"pad":""},"error":null}';
    bodies.set(bytes, body = frame.replace('""', `"${'x'.repeat(bytes - frame.length)}"`));
  }
  return reply.type('application/json; charset=utf-8').send(body);
});
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
console.log('ready');
