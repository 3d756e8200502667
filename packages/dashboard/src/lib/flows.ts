// /query/flows answers page-to-page edges; the Flows screen reads them per page: where people
// went next from each page (and, for one chosen page, where they came from), each next page's
// share of the page's transitions.

export interface FlowEdge { from: string; to: string; transitions: number; sessions: number }
export interface FlowStep { page: string; transitions: number; sessions: number; share: number }
export interface PageFlows { page: string; transitions: number; steps: FlowStep[] }

const byCount = (a: { transitions: number; page: string }, b: { transitions: number; page: string }) =>
  b.transitions - a.transitions || a.page.localeCompare(b.page);

function group(edges: FlowEdge[], key: 'from' | 'to'): PageFlows[] {
  const other = key === 'from' ? 'to' : 'from';
  const pages = new Map<string, FlowEdge[]>();
  for (const e of edges) pages.set(e[key], [...(pages.get(e[key]) ?? []), e]);
  return [...pages].map(([page, list]) => {
    const transitions = list.reduce((sum, e) => sum + e.transitions, 0);
    const steps = list.map((e) => ({ page: e[other], transitions: e.transitions, sessions: e.sessions, share: transitions > 0 ? e.transitions / transitions : 0 })).sort(byCount);
    return { page, transitions, steps };
  }).sort(byCount);
}

/** Each page with the pages people went to next, busiest page first. */
export const nextPages = (edges: FlowEdge[]) => group(edges, 'from');
/** Each page with the pages people came from, busiest page first. */
export const previousPages = (edges: FlowEdge[]) => group(edges, 'to');
