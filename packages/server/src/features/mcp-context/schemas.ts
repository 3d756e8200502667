// GET /v1/query/mcp/context: its query string and answer (the MCP get_site_context tool and
// the mallard://context resource return the same).
import { Type } from '@sinclair/typebox';
import { SiteIdParam } from '../../domain/schema-parts.ts';

const Row = Type.Record(Type.String(), Type.Unknown());

export const SiteContextQuery = Type.Object({ site_id: Type.Optional(SiteIdParam) });

export const SiteContext = Type.Object({
  site_id: Type.String(), state: Type.String(), as_of: Type.Union([Type.String(), Type.Null()]), caps: Row,
  overall: Row, top_pages: Type.Array(Row), open_issues: Type.Array(Row), open_issue_count: Type.Integer(),
  recent_deploys: Type.Array(Row), active_alerts: Type.Array(Row), active_alert_count: Type.Integer(), recommendations: Type.Array(Row),
  revenue: Type.Union([Row, Type.Null()]),
});
