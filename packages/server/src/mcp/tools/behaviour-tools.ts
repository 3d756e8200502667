// Read tools about what users did: the heatmaps (summarised in words), the friction journey
// map, page-to-page flows, sessions search, one session with its narrative, and raw rows.
import { checkedElementHeatmapOp, pageHeatmapOp } from '../../features/heatmaps/operations.ts';
import { flowsOp, frictionMapOp } from '../../features/journeys/operations.ts';
import { searchSessionsOp, sessionOp } from '../../features/sessions/operations.ts';
import { formatDuration } from '../../features/sessions/narrative.ts';
import { rawRowsOp } from '../../features/raw/operations.ts';
import { summarizePoints } from '../heatmap-summary.ts';
import { defineTool } from '../tool-kit.ts';
import { bullets, countsLine, lines, plural } from '../text.ts';

export const elementHeatmapTool = defineTool({
  name: 'get_element_heatmap',
  operation: checkedElementHeatmapOp,
  title: 'Heatmap inside one element',
  description: 'Where inside one element users struggled: points from 0,0 (top left) to 1,1, summed up in words.',
  argumentNotes: { selector: 'CSS selector, as issues name it' },
  pageFields: ['page'],
  summarize: (d) => lines(
    `${d.selector} on ${d.page}:`,
    summarizePoints(d.points.map((p) => ({ x: p.rx, y: p.ry, signal: p.signal })), 'element'),
  ),
});

export const pageHeatmapTool = defineTool({
  name: 'get_page_heatmap',
  operation: pageHeatmapOp,
  title: 'Heatmap of a page',
  description: 'Where in the viewport users struggled on a page: points from 0,0 to 1,1, the elements hit most.',
  pageFields: ['page'],
  summarize: (d) => lines(
    `${d.page}:`,
    summarizePoints(d.points.map((p) => ({ x: p.vx, y: p.vy, signal: p.signal, el: p.el })), 'viewport'),
  ),
});

export const frictionMapTool = defineTool({
  name: 'get_friction_map',
  operation: frictionMapOp,
  title: 'Friction journey map',
  description: 'Page transitions where users struggled, heaviest first, with example session ids.',
  argumentNotes: { limit: 'sessions analysed', min_friction_weight: 'leave out lighter edges', signal_type: null },
  links: [{ at: 'edges[].examples[]', kind: 'session', id: 'session_id' }],
  summarize: (d) => d.edges.length === 0 ? `No friction on page transitions in ${plural(d.sessions_analyzed, 'session')} analyzed.` : lines(
    `${plural(d.edges.length, 'transition')} with friction in ${plural(d.sessions_analyzed, 'session')} analyzed:`,
    bullets(d.edges, (e) => `${e.from} -> ${e.to}: weight ${e.friction_weight}, ${plural(e.sessions, 'session')} (${countsLine(e.signals)})`, 'transitions'),
  ),
});

export const flowsTool = defineTool({
  name: 'get_flows',
  operation: flowsOp,
  title: 'Page-to-page flows',
  description: 'How users move between pages: page-to-page edges, busiest first.',
  argumentNotes: { days: 'days back when from is not given' },
  summarize: (d) => d.edges.length === 0 ? `No page-to-page movement in ${d.days} days.` : lines(
    `${plural(d.edges.length, 'edge')} from ${plural(d.sessions_analyzed, 'session')} over ${d.days} days:`,
    bullets(d.edges, (e) => `${e.from} -> ${e.to}: ${plural(e.transitions, 'transition')}, ${plural(e.sessions, 'session')}`, 'edges'),
  ),
});

export const sessionTool = defineTool({
  name: 'get_session',
  operation: sessionOp,
  title: 'One session',
  description: 'One session in words: pages in order, signals, events and a narrative of what the user went through.',
  argumentNotes: { session_id: '32 hex characters' },
  links: [{ at: 'session', kind: 'session', id: 'session_id' }],
  summarize: (d) => lines(
    `Session ${d.session.session_id}: ${plural(d.session.page_count, 'page')}, ${plural(d.session.signal_count, 'signal')}${d.session.signal_count ? ` (${countsLine(d.session.signal_counts)})` : ''}, ${d.session.converted ? 'converted' : 'did not convert'}.`,
    d.narrative,
  ),
});

/** How many sessions the text lists; the structured result holds the whole page. */
const SESSION_LINES = 20;

/** The search's filters in words: " (page /checkout*, converted)". */
function sessionFilters(input: Record<string, unknown>): string {
  const named = ['page', 'signal_type', 'issue_id', 'device', 'browser', 'converted', 'has_clips', 'min_friction']
    .filter((k) => input[k] !== undefined)
    .map((k) => (typeof input[k] === 'boolean' ? `${input[k] ? '' : 'not '}${k === 'has_clips' ? 'with clips' : k}` : `${k.replace('_', ' ')} ${String(input[k])}`));
  return named.length ? ` (${named.join(', ')})` : '';
}

type SearchRow = { session_id: string; started_at: string; duration_ms: number; page_count: number; signals: Record<string, number>; friction_weight: number; converted: boolean; clips: number; summary: string };

/** One session in a line: id, start (to the minute), duration, pages, friction and top signals, conversion, clips, summary. */
const sessionLine = (s: SearchRow) => {
  const top = Object.entries(s.signals).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, 3).map(([t, n]) => `${t} ${n}`).join(', ');
  return `${s.session_id} ${s.started_at.slice(0, 16).replace('T', ' ')} UTC, ${formatDuration(s.duration_ms)}, ${plural(s.page_count, 'page')}, `
    + `friction ${s.friction_weight}${top ? ` (${top})` : ''}, ${s.converted ? 'converted' : 'not converted'}${s.clips ? `, ${plural(s.clips, 'clip')}` : ''}: ${s.summary}`;
};

export const findSessionsTool = defineTool({
  name: 'find_sessions',
  operation: searchSessionsOp,
  title: 'Find sessions',
  description: 'Search sessions (default the last 7 days), most friction first: ids for get_session, pages, signals, conversion, a summary.',
  argumentNotes: {
    page: 'a path, or a pattern with * wildcards', signal_type: 'e.g. rage_click', issue_id: 'sessions that met this issue', browser: 'e.g. Chrome',
    converted: 'had a conversion event', has_clips: null, min_friction: 'least friction weight', sort: null,
  },
  links: [{ at: 'sessions[]', kind: 'session', id: 'session_id' }],
  summarize: (d, input) => d.total === 0 ? `No sessions${sessionFilters(input)} from ${d.window_from} to ${d.window_to}.` : lines(
    `${d.total_capped ? `More than ${d.total.toLocaleString('en-US')} sessions` : plural(d.total, 'session')}${sessionFilters(input)} from ${d.window_from} to ${d.window_to}, by ${input.sort ?? 'friction'}; `
      + (d.sessions.length ? `showing ${d.offset + 1} to ${d.offset + d.sessions.length}:` : `none after the first ${d.offset}.`),
    bullets(d.sessions, sessionLine, 'sessions', d.total - d.offset, SESSION_LINES),
  ),
});

/** Longest a raw row's line gets (its longest values are cut), so that the default page of rows stays well within the answer's budget. */
const RAW_LINE_MAX = 400;

/** One raw row in a line: field=value for every field that has one, long values cut. */
function rawRowLine(row: Record<string, unknown>): string {
  const parts = Object.entries(row).filter(([, v]) => v !== null && v !== undefined && v !== '').map(([k, v]) => {
    const text = typeof v === 'string' ? v : JSON.stringify(v);
    return `${k}=${text.length > 80 ? `${text.slice(0, 77)}...` : text}`;
  });
  const line = parts.join(', ');
  return line.length > RAW_LINE_MAX ? `${line.slice(0, RAW_LINE_MAX - 3)}...` : line;
}

export const rawTool = defineTool({
  name: 'query_raw',
  operation: rawRowsOp,
  title: 'Raw rows',
  description: 'Raw rows of one table, for questions no other tool answers.',
  argumentNotes: { table: 'events, signals, sessions, page_scores, score_history, ux_issues, deploys or alerts', sort: 'a column of the table', order: 'asc or desc (default)' },
  summarize: (d) => d.rows.length === 0 ? `No rows of ${d.table} from offset ${d.offset} (${d.total} in all).` : lines(
    `${d.table}: rows ${d.offset + 1} to ${d.offset + d.rows.length} of ${d.total}:`,
    d.rows.map((row) => `- ${rawRowLine(row as Record<string, unknown>)}`),
  ),
});

export const BEHAVIOUR_TOOLS = [elementHeatmapTool, pageHeatmapTool, frictionMapTool, flowsTool, findSessionsTool, sessionTool, rawTool];
