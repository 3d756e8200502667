// GET /v1/query/mcp/context: one call that tells an assistant the state of a site.
import type { App } from '../../http/app-types.ts';
import { Envelope, okOnce } from '../../http/envelope.ts';
import { QUERY_ACCESS } from '../../http/query.ts';
import { contextOf } from '../../http/context.ts';
import { SiteContext, SiteContextQuery } from './schemas.ts';
import { getSiteContext } from './service.ts';

export async function mcpContextRoutes(app: App) {
  app.get('/query/mcp/context', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'One-call summary for an assistant: scores, open issues, deploys, alerts, recommendations, revenue',
      querystring: SiteContextQuery,
      response: { 200: Envelope(SiteContext) },
    },
  }, async (request, reply) => okOnce(reply, await getSiteContext({ ctx: contextOf(request), input: request.query })));
}
