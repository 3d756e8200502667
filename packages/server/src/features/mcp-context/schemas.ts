// GET /v1/query/mcp/context: its query string and answer (the MCP get_site_context tool and
// the mallard://context resource return the same).
import { Type } from '@sinclair/typebox';
import { TRIGGER_TYPES } from '../../domain/alert-triggers.ts';
import {
  AlertSeverityEnum, AlertStatusEnum, DuckStateEnum, IsoTime, IssueStatusEnum, Nullable, NullableIsoTime, OneOf, SeverityEnum, SiteIdParam, TrendEnum, Uuid,
} from '../../domain/schema-parts.ts';
import { DUCK_REASONS } from '../../pipeline/site-state.ts';
import { CONTEXT_CAPS } from './site-context.ts';

const Int = Type.Integer();
const Caps = Type.Object(Object.fromEntries(Object.keys(CONTEXT_CAPS).map((k) => [k, Int])), { description: 'How many of each list are shown at most' });
const Overall = Type.Object({
  score: Type.Number(), trend: TrendEnum, duck_state: DuckStateEnum,
  duck_reason: OneOf(DUCK_REASONS, 'What set duck_state (as /query/scores)'), headline: Type.String({ description: 'The sentence every face shows (as /query/scores)' }),
  active_users: Int, affected_users: Int, window_from: NullableIsoTime, window_to: NullableIsoTime,
}, { description: 'The site as /query/scores gives it; active and affected users over window_from to window_to' });
const TopPage = Type.Object({ page: Type.String(), score: Type.Number(), trend: TrendEnum, dominant_signal: Nullable(Type.String()), active_users: Int });
const OpenIssue = Type.Object({
  id: Uuid, title: Type.String(), page: Type.String(), type: Type.String({ description: 'The signal type' }), severity: SeverityEnum,
  status: IssueStatusEnum, session_count: Type.Integer({ description: 'Sessions affected over the last 24 hours' }), last_seen_at: IsoTime,
  priority: Type.Number({ description: 'What to fix first, 0-100 (docs/issues.md, "Priority"); the list is in priority order' }),
  priority_reason: Type.String({ description: 'The priority in words' }),
}, { description: 'An issue needing attention (open, triaged, in_progress or regressed)' });
const RecentDeploy = Type.Object({
  id: Uuid, version: Type.String(), environment: Type.String(), deployed_at: IsoTime, confusion_before: Type.Number(),
  confusion_after: Nullable(Type.Number()), delta: Nullable(Type.Number()),
});
const ActiveAlert = Type.Object({
  id: Uuid, trigger_type: OneOf(TRIGGER_TYPES), page: Nullable(Type.String()), severity: AlertSeverityEnum, status: AlertStatusEnum,
  message: Type.String(), fired_at: IsoTime, mcp_channel: Type.Boolean({ description: 'Its rule sends it to the mcp channel: meant for the assistant' }),
});
const Recommendation = Type.Object({ issue_id: Uuid, title: Type.String(), recommendation: Type.String() });

export const SiteContextQuery = Type.Object({ site_id: Type.Optional(SiteIdParam) });

export const SiteContext = Type.Object({
  site_id: Type.String(), state: Type.String(), as_of: Type.Union([Type.String(), Type.Null()]), caps: Caps,
  overall: Overall, top_pages: Type.Array(TopPage), open_issues: Type.Array(OpenIssue, { description: 'Issues needing attention in priority order, the first `caps.issues`' }),
  open_issue_count: Type.Integer({ description: 'Issues needing attention (open, triaged, in_progress, regressed), all of them' }),
  recent_deploys: Type.Array(RecentDeploy), active_alerts: Type.Array(ActiveAlert), active_alert_count: Type.Integer(),
  recommendations: Type.Array(Recommendation),
  revenue: Nullable(Type.Object({
    currency: Type.String(), monthly_at_risk: Type.Number({ description: 'In currency units (monthly_at_risk_cents / 100)' }), monthly_at_risk_cents: Int,
  }, { description: 'null until a conversion event is tracked' })),
});
