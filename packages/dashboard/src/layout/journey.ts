// The friction journey map as a layered graph: pages in rows from where journeys start (top)
// to where they go, edges as curves whose width follows the friction weight. Cycles (a user
// going back) are broken by keeping the heavier edges forward; the lighter edge of a cycle is
// drawn as a back edge curving round the right of the rows, a reload or loop as a small loop
// on its page.
export interface JourneyEdge { from: string; to: string; friction_weight: number }

export interface LaidNode { id: string; layer: number; order: number; x: number; y: number; weight: number }
export interface LaidLink { from: string; to: string; weight: number; width: number; kind: 'forward' | 'back' | 'self'; d: string }
export interface JourneyLayout { nodes: LaidNode[]; links: LaidLink[]; width: number; height: number }

export const NODE = { width: 150, height: 30 };
const GAP = { column: 24, row: 50, margin: 16, side: 48 };
const WIDTH = { min: 1.5, max: 14 };

/** Stroke width by weight: square-root scaled so a few heavy edges do not make the rest hairlines. */
export function edgeWidth(weight: number, maxWeight: number): number {
  if (!(maxWeight > 0) || !(weight > 0)) return WIDTH.min;
  return WIDTH.min + (WIDTH.max - WIDTH.min) * Math.sqrt(Math.min(1, weight / maxWeight));
}

/** Heaviest edges first; an edge that would close a cycle is a back edge. */
function splitEdges(edges: readonly JourneyEdge[]) {
  const forward = new Map<string, Set<string>>();
  const reaches = (from: string, target: string) => {
    const seen = new Set<string>();
    const stack = [from];
    while (stack.length) {
      const node = stack.pop()!;
      if (node === target) return true;
      if (seen.has(node)) continue;
      seen.add(node);
      for (const next of forward.get(node) ?? []) stack.push(next);
    }
    return false;
  };
  const kinds = new Map<JourneyEdge, LaidLink['kind']>();
  for (const edge of [...edges].sort((a, b) => b.friction_weight - a.friction_weight || a.from.localeCompare(b.from) || a.to.localeCompare(b.to))) {
    if (edge.from === edge.to) { kinds.set(edge, 'self'); continue; }
    if (reaches(edge.to, edge.from)) { kinds.set(edge, 'back'); continue; }
    if (!forward.has(edge.from)) forward.set(edge.from, new Set());
    forward.get(edge.from)!.add(edge.to);
    kinds.set(edge, 'forward');
  }
  return { forward, kinds };
}

export function layoutJourney(edges: readonly JourneyEdge[]): JourneyLayout {
  const { forward, kinds } = splitEdges(edges);
  const ids = [...new Set(edges.flatMap((e) => [e.from, e.to]))];
  const weight = new Map(ids.map((id) => [id, 0]));
  for (const e of edges) {
    weight.set(e.from, weight.get(e.from)! + e.friction_weight);
    if (e.to !== e.from) weight.set(e.to, weight.get(e.to)! + e.friction_weight);
  }

  // Longest path from the sources, over the forward edges (a DAG by construction).
  const layer = new Map(ids.map((id) => [id, 0]));
  const indegree = new Map(ids.map((id) => [id, 0]));
  for (const targets of forward.values()) for (const t of targets) indegree.set(t, indegree.get(t)! + 1);
  const queue = ids.filter((id) => indegree.get(id) === 0);
  while (queue.length) {
    const node = queue.shift()!;
    for (const next of forward.get(node) ?? []) {
      layer.set(next, Math.max(layer.get(next)!, layer.get(node)! + 1));
      indegree.set(next, indegree.get(next)! - 1);
      if (indegree.get(next) === 0) queue.push(next);
    }
  }

  // Within a row: by the mean position of the pages leading in (fewer crossings), then by weight.
  const columns: string[][] = [];
  for (const id of ids) (columns[layer.get(id)!] ??= []).push(id);
  const order = new Map<string, number>();
  const parents = new Map<string, string[]>();
  for (const [from, targets] of forward) for (const t of targets) (parents.get(t) ?? parents.set(t, []).get(t)!).push(from);
  for (const column of columns) {
    if (!column) continue;
    const key = (id: string) => {
      const p = (parents.get(id) ?? []).filter((q) => order.has(q));
      return p.length ? p.reduce((s, q) => s + order.get(q)!, 0) / p.length : -1;
    };
    column.sort((a, b) => key(a) - key(b) || weight.get(b)! - weight.get(a)! || a.localeCompare(b));
    column.forEach((id, i) => order.set(id, i));
  }

  const across = Math.max(1, ...columns.map((c) => c?.length ?? 0));
  const nodes: LaidNode[] = ids.map((id) => ({
    id, layer: layer.get(id)!, order: order.get(id)!, weight: weight.get(id)!,
    x: GAP.margin + order.get(id)! * (NODE.width + GAP.column),
    y: GAP.margin + layer.get(id)! * (NODE.height + GAP.row),
  }));
  const at = new Map(nodes.map((n) => [n.id, n]));
  const bodyRight = GAP.margin + across * (NODE.width + GAP.column) - GAP.column;
  const hasBack = [...kinds.values()].includes('back');
  const maxWeight = Math.max(0, ...edges.map((e) => e.friction_weight));

  const links: LaidLink[] = edges.map((e) => {
    const kind = kinds.get(e)!;
    const a = at.get(e.from)!;
    const b = at.get(e.to)!;
    const r = (n: number) => Math.round(n * 10) / 10;
    let d: string;
    if (kind === 'self') {
      const x = a.x + NODE.width;
      d = `M${r(x)} ${r(a.y + 6)}c22 -6 22 24 0 18`;
    } else if (kind === 'forward') {
      const x1 = a.x + NODE.width / 2, y1 = a.y + NODE.height, x2 = b.x + NODE.width / 2, y2 = b.y;
      const mid = (y1 + y2) / 2;
      d = `M${r(x1)} ${r(y1)}C${r(x1)} ${r(mid)} ${r(x2)} ${r(mid)} ${r(x2)} ${r(y2)}`;
    } else {
      const x1 = a.x + NODE.width, y1 = a.y + NODE.height / 2, x2 = b.x + NODE.width, y2 = b.y + NODE.height / 2;
      const side = bodyRight + GAP.side * 0.8;
      d = `M${r(x1)} ${r(y1)}C${r(side)} ${r(y1)} ${r(side)} ${r(y2)} ${r(x2)} ${r(y2)}`;
    }
    return { from: e.from, to: e.to, weight: e.friction_weight, width: r(edgeWidth(e.friction_weight, maxWeight)), kind, d };
  });

  const layers = Math.max(1, columns.length);
  return {
    nodes, links,
    width: bodyRight + GAP.margin + (hasBack ? GAP.side : 16),
    height: GAP.margin * 2 + layers * NODE.height + (layers - 1) * GAP.row,
  };
}
