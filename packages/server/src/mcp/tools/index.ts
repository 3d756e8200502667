// Every tool, and the ones a credential gets: those whose operation's access admits it (the
// catalog's runner decides, as it does for the routes): the read tools for anyone who may
// read (mcp:read or query:read, any user), the write tools only for those who may also write.
import type { AuthContext } from '../../domain/context.ts';
import { admits } from '../../domain/operation.ts';
import type { Tool } from '../tool-kit.ts';
import { ALERT_TOOLS } from './alert-tools.ts';
import { BEHAVIOUR_TOOLS } from './behaviour-tools.ts';
import { DEPLOY_TOOLS } from './deploy-tools.ts';
import { FUNNEL_TOOLS } from './funnel-tools.ts';
import { ISSUE_TOOLS } from './issue-tools.ts';
import { SITE_TOOLS } from './site-tools.ts';

export const ALL_TOOLS: readonly Tool[] = [...SITE_TOOLS, ...BEHAVIOUR_TOOLS, ...FUNNEL_TOOLS, ...ISSUE_TOOLS, ...ALERT_TOOLS, ...DEPLOY_TOOLS];

export const toolsFor = (auth: AuthContext): Tool[] => ALL_TOOLS.filter((t) => admits(auth, t.operation.access));
