// The one-call summary of a site for an assistant.
import { defineOperation, READ_ACCESS } from '../../domain/operation.ts';
import { SiteContext, SiteContextQuery } from './schemas.ts';
import { getSiteContext } from './service.ts';

export const siteContextOp = defineOperation({
  name: 'site.context',
  summary: 'One-call summary for an assistant: scores, open issues, deploys, alerts, recommendations, revenue',
  access: READ_ACCESS,
  http: { method: 'GET', path: '/query/mcp/context', surface: 'query', tags: ['query'] },
  input: { query: SiteContextQuery },
  output: SiteContext,
  run: (ctx, input) => getSiteContext({ ctx, input }),
});

export const MCP_CONTEXT_OPERATIONS = [siteContextOp];
