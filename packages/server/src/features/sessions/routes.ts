// GET /v1/query/session: the session, every event in order, and its narrative.
import type { App } from '../../http/app-types.ts';
import { Envelope, ok } from '../../http/envelope.ts';
import { QUERY_ACCESS } from '../../http/query.ts';
import { contextOf } from '../../http/context.ts';
import { SessionQuery, SessionTimeline } from './schemas.ts';
import { sessionTimeline } from './session-timeline.ts';

export async function sessionRoutes(app: App) {
  app.get('/query/session', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'One session: timing, device, pages, signal counts, every event and a narrative',
      querystring: SessionQuery,
      response: { 200: Envelope(SessionTimeline) },
    },
  }, async (request) => ok(await sessionTimeline({ ctx: contextOf(request), input: request.query })));
}
