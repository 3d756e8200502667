// The baselines: a bare Fastify route that parses the same JSON body as ingest and answers 202,
// and a bare GET route answering a small JSON envelope (the read bench's baseline).
import Fastify from 'fastify';

const app = Fastify({ bodyLimit: 1024 * 1024 });
app.post('/v1/ingest', async (request, reply) => {
  const body = request.body as { events: unknown[] };
  reply.code(202);
  return { data: { accepted: body.events.length, rejected: 0, rejections: [] }, error: null };
});
app.get('/v1/query/bare', async () => ({ data: { ok: true, site_id: '00000000-0000-7000-8000-000000000001' }, error: null }));
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
console.log('ready');
