// How big a tool's answer is by default (docs/mcp.md, "Token budgets"): the structured content
// keeps every headline field and cuts the long lists (history rows, heatmap points, a deploy's
// per-page lists, pages of list tools) to their first entries, saying in `omitted` what was cut
// from how many and in `next` how to ask for the rest: `detail: "full"` for the whole answer as
// the route returns it, or `offset`/`limit` for the next page of a list tool. The text always
// summarises the whole answer, so nothing it says is lost by the cut.
import { Type, type TObject } from '@sinclair/typebox';
import { AppError } from '../domain/errors.ts';

export interface AnswerShape {
  /** The tool's default page size where its route pages a list (the route's default suits API clients, not a model's context). */
  limit?: number;
  /** Lists cut to their first N entries unless `detail` is "full"; `a[].b` is the list b of every entry of a. */
  lists?: Record<string, number>;
  /** Fields left out unless `detail` is "full" (per-row lists the headline fields already sum up). */
  drop?: readonly string[];
}

export const ANSWER_SHAPES: Record<string, AnswerShape> = {
  get_scores: { lists: { 'site.pages': 20 }, drop: ['site.pages[].breakdown'] },
  get_recommendations: { limit: 10 },
  get_page: { lists: { history: 12, elements: 10, issues: 10, active_alerts: 10, annotations: 10, budgets: 10 }, drop: ['history[].breakdown', 'recent_deploys[].pages_before', 'recent_deploys[].pages_after'] },
  get_trends: { lists: { history: 24 }, drop: ['history[].breakdown'] },
  get_elements: { lists: { elements: 20 } },
  get_element_heatmap: { lists: { points: 50 } },
  get_page_heatmap: { lists: { points: 50 } },
  get_friction_map: { lists: { edges: 15, 'edges[].examples': 2 } },
  get_flows: { lists: { edges: 30 } },
  get_session: { lists: { events: 40, 'session.pages': 20 } },
  get_revenue: { lists: { issues: 20 } },
  get_issue: { lists: { evidence: 10, linked_sessions: 10, activity: 10, verifications: 5, daily_counts: 14 } },
  get_alert: { lists: { timeline: 20 } },
  get_deploy: { lists: { pages_before: 20, pages_after: 20, related_issues: 20 } },
  check_deploy: { lists: { pages: 20, reasons: 20, new_critical_issues: 10, new_high_issues: 10 } },
  list_deploys: { limit: 20, drop: ['deploys[].pages_before', 'deploys[].pages_after'] },
  list_issues: { limit: 10, drop: ['issues[].daily_counts'] },
  list_alerts: { limit: 10 },
  find_sessions: { limit: 10 },
  query_raw: { limit: 20 },
};

/** The argument that asks for the whole answer. */
export const DetailArgument = Type.Union([Type.Literal('summary'), Type.Literal('full')], {
  description: 'full: no list cut',
});

/** The arguments a tool takes beside its route's: `detail` where the answer has lists to cut. */
export function answerArguments(tool: string): TObject | undefined {
  const shape = ANSWER_SHAPES[tool];
  if (!shape?.lists && !shape?.drop) return undefined;
  return Type.Object({ detail: Type.Optional(DetailArgument) });
}

type Json = Record<string, unknown>;

/** The values at a path of lists and fields ("a[].b": field b of every entry of list a), with their holders. */
function holders(root: Json, path: string): { holder: Json; key: string }[] {
  const steps = path.split('.');
  let current: Json[] = [root];
  for (const step of steps.slice(0, -1)) {
    const [key, each] = step.endsWith('[]') ? [step.slice(0, -2), true] : [step, false];
    const next: Json[] = [];
    for (const node of current) {
      const value = node[key];
      if (each && Array.isArray(value)) next.push(...value.filter((v): v is Json => typeof v === 'object' && v !== null));
      else if (!each && typeof value === 'object' && value !== null) next.push(value as Json);
    }
    current = next;
  }
  const last = steps[steps.length - 1];
  return current.filter((node) => last in node).map((holder) => ({ holder, key: last }));
}

/**
 * The answer as sent by default: lists cut and per-row lists dropped, with `omitted` (path ->
 * how many entries there were, or "left out") and `next` saying how to get the rest.
 */
export function compactAnswer(tool: string, data: Json, detail: 'summary' | 'full', limit?: unknown): Json {
  const shape = ANSWER_SHAPES[tool];
  if (!shape) return data;
  const omitted: Record<string, number | string> = {};
  const hints: string[] = [];
  if (detail !== 'full') {
    for (const [path, keep] of Object.entries(shape.lists ?? {})) {
      let most = 0;
      for (const { holder, key } of holders(data, path)) {
        const list = holder[key];
        if (Array.isArray(list) && list.length > keep) {
          most = Math.max(most, list.length);
          holder[key] = list.slice(0, keep);
        }
      }
      if (most > 0) omitted[path] = most;
    }
    for (const path of shape.drop ?? []) {
      let dropped = false;
      for (const { holder, key } of holders(data, path)) {
        delete holder[key];
        dropped = true;
      }
      if (dropped) omitted[path] = 'left out';
    }
    const cut = Object.entries(omitted).map(([path, n]) => (typeof n === 'number' ? `${path}: first ${shape.lists![path]} of ${n}` : `${path}: left out`));
    if (cut.length > 0) hints.push(`${cut.join('; ')}. Call ${tool} with detail: "full" for everything`);
  }
  const total = data.total;
  const offset = typeof data.offset === 'number' ? data.offset : 0;
  const shown = Object.values(data).find(Array.isArray)?.length ?? 0;
  if (shape.limit !== undefined && typeof total === 'number' && offset + shown < total) {
    hints.push(`${total - offset - shown} more after these ${shown}: call ${tool} with offset: ${offset + shown}`);
  } else if (shape.limit !== undefined && total === undefined && shown > 0 && shown === limit) {
    // A list without a total (get_recommendations): a full page may have more behind it.
    hints.push(`these are the first ${shown}; call ${tool} with limit: ${shown * 2} for more`);
  }
  if (Object.keys(omitted).length > 0) data.omitted = omitted;
  if (hints.length > 0) data.next = `${hints.join('. ')}.`;
  return data;
}

/**
 * A call's arguments split: `detail` (checked here) and the route's arguments, with the tool's
 * own default page size where the caller gave no `limit`.
 */
export function answerArgs(tool: string, args: Json): { args: Json; detail: 'summary' | 'full' } {
  const shape = ANSWER_SHAPES[tool];
  const { detail, ...rest } = args;
  if (detail !== undefined && (answerArguments(tool) === undefined || (detail !== 'summary' && detail !== 'full'))) {
    if (answerArguments(tool) === undefined) return { args, detail: 'summary' }; // the route's check names the unknown argument
    throw new AppError('invalid_input', `detail: "${String(detail)}" is not one of the allowed values: summary, full`, { field: 'detail', reason: 'must be summary or full', allowed: ['summary', 'full'] });
  }
  if (shape?.limit !== undefined && rest.limit === undefined) rest.limit = shape.limit;
  return { args: rest, detail: detail === 'full' ? 'full' : 'summary' };
}
