// Pure: the friction journey map of DOMAIN.md section 5b.
// A traversal is two consecutive pageviews of a session; a signal qualifies for it when its
// type decorates edges (tier 1 or 2), it matches the filter, and it happened on the source
// page during the source visit or on the destination page during the destination visit.
import { isEdgeDecorator } from '../../domain/signals.ts';

export const MAX_EDGES = 100;
export const MAX_EXAMPLES = 5;

export interface JourneyPageview { page: string; at: number }
export interface JourneySignal { id: string; type: string; page: string; element: string; at: number; confidence: number }
export interface JourneySession { sid: string; pageviews: JourneyPageview[]; signals: JourneySignal[] }

export interface FrictionEdge {
  from: string;
  to: string;
  sessions: number;
  friction_weight: number;
  signals: Record<string, number>;
  examples: { session_id: string; page: string; signal_type: string; element_selector: string; occurred_at: number }[];
}

export interface FrictionOptions { weight: (type: string) => number; signalType?: string; minFrictionWeight: number }

export const roundTo1 = (value: number) => Math.round((value + Number.EPSILON) * 10) / 10;

export function frictionEdges(sessions: readonly JourneySession[], options: FrictionOptions): FrictionEdge[] {
  interface Acc { from: string; to: string; sessions: Set<string>; signals: Record<string, number>; weight: number; examples: Map<string, FrictionEdge['examples'][number]> }
  const edges = new Map<string, Acc>();

  for (const session of sessions) {
    const views = [...session.pageviews].sort((a, b) => a.at - b.at);
    // A custom weight of 0 switches a type off, here as in scoring.
    const signals = session.signals.filter((s) => isEdgeDecorator(s.type) && options.weight(s.type) > 0 && (!options.signalType || s.type === options.signalType));
    // Visit i lasts from its pageview until the next one (the last visit, until the end).
    const visitEnd = (i: number) => (i + 1 < views.length ? views[i + 1].at : Infinity);
    const during = (s: JourneySignal, i: number) => s.page === views[i].page && s.at >= views[i].at && s.at < visitEnd(i);

    for (let i = 0; i + 1 < views.length; i++) {
      const qualifying = signals.filter((s) => during(s, i) || during(s, i + 1));
      if (qualifying.length === 0) continue;
      const key = `${views[i].page}\u0000${views[i + 1].page}`;
      let edge = edges.get(key);
      if (!edge) {
        edge = { from: views[i].page, to: views[i + 1].page, sessions: new Set(), signals: {}, weight: 0, examples: new Map() };
        edges.set(key, edge);
      }
      edge.sessions.add(session.sid);
      for (const s of qualifying) {
        edge.signals[s.type] = (edge.signals[s.type] ?? 0) + 1;
        edge.weight += options.weight(s.type) * s.confidence;
        edge.examples.set(s.id, { session_id: session.sid, page: s.page, signal_type: s.type, element_selector: s.element, occurred_at: s.at });
      }
    }
  }

  return [...edges.values()]
    .map((e): FrictionEdge => ({
      from: e.from,
      to: e.to,
      sessions: e.sessions.size,
      friction_weight: roundTo1(e.weight),
      signals: e.signals,
      examples: [...e.examples.values()].sort((a, b) => b.occurred_at - a.occurred_at).slice(0, MAX_EXAMPLES),
    }))
    .filter((e) => e.friction_weight >= options.minFrictionWeight)
    .sort((a, b) => b.friction_weight - a.friction_weight || b.sessions - a.sessions || a.from.localeCompare(b.from) || a.to.localeCompare(b.to))
    .slice(0, MAX_EDGES);
}

export interface FlowEdge { from: string; to: string; transitions: number; sessions: number }

/** The order of flow edges: most transitions, then most sessions, then by page. */
export const compareFlowEdges = (a: FlowEdge, b: FlowEdge) =>
  b.transitions - a.transitions || b.sessions - a.sessions || a.from.localeCompare(b.from) || a.to.localeCompare(b.to);
