// The baseline: a bare Fastify route that parses the same JSON body and answers 202.
import Fastify from 'fastify';

const app = Fastify({ bodyLimit: 1024 * 1024 });
app.post('/v1/ingest', async (request, reply) => {
  const body = request.body as { events: unknown[] };
  reply.code(202);
  return { data: { accepted: body.events.length, rejected: 0, rejections: [] }, error: null };
});
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
console.log('ready');
