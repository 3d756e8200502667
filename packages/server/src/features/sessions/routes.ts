// GET /v1/query/session: the session, every event in order, and its narrative.
// GET /v1/query/sessions: sessions search (filters, sorts, pages; a summary per session).
import type { App } from '../../http/app-types.ts';
import { Envelope, ok, okOnce } from '../../http/envelope.ts';
import { QUERY_ACCESS } from '../../http/query.ts';
import { contextOf } from '../../http/context.ts';
import { SessionQuery, SessionSearchList, SessionsSearchQuery, SessionTimeline } from './schemas.ts';
import { searchSessions } from './session-search.ts';
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

  app.get('/query/sessions', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'Sessions of a window (default the last 7 days), filtered by page pattern, signal type, issue, device, browser, conversion and friction; by friction weight by default',
      querystring: SessionsSearchQuery,
      response: { 200: Envelope(SessionSearchList) },
    },
  }, async (request, reply) => okOnce(reply, await searchSessions({ ctx: contextOf(request), input: request.query })));
}
