// GET /v1/query/mcp/context: one call that tells an assistant the state of a site.
import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-types.ts';
import { Envelope, ok } from '../../http/envelope.ts';
import { QUERY_ACCESS } from '../../http/query.ts';
import { contextOf } from '../../http/context.ts';
import { getSiteContext } from './service.ts';

const Row = Type.Record(Type.String(), Type.Unknown());

export async function mcpContextRoutes(app: App) {
  app.get('/query/mcp/context', {
    config: { access: QUERY_ACCESS },
    schema: {
      tags: ['query'], summary: 'One-call summary for an assistant: scores, open issues, deploys, alerts, recommendations, revenue',
      querystring: Type.Object({ site_id: Type.Optional(Type.String({ maxLength: 64 })) }),
      response: {
        200: Envelope(Type.Object({
          site_id: Type.String(), state: Type.String(), as_of: Type.Union([Type.String(), Type.Null()]), caps: Row,
          overall: Row, top_pages: Type.Array(Row), open_issues: Type.Array(Row), open_issue_count: Type.Integer(),
          recent_deploys: Type.Array(Row), active_alerts: Type.Array(Row), active_alert_count: Type.Integer(), recommendations: Type.Array(Row),
          revenue: Type.Union([Row, Type.Null()]),
        })),
      },
    },
  }, async (request) => ok(await getSiteContext({ ctx: contextOf(request), input: request.query })));
}
