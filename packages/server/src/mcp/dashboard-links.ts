// Dashboard links beside the ids a tool answers with: every issue, session, alert and deploy
// id gets a `dashboard_url` next to it (MALLARD_PUBLIC_URL and the dashboard's hash routes), in
// the structured content and after the id in the text, so an assistant can hand a person a link
// that opens where they work. The API's own fields (`issue_url`, ids) stay as the routes give them.

export type LinkKind = 'issue' | 'session' | 'alert' | 'deploy';

/**
 * Where ids sit in an answer: `at` is a dotted path from the root ('' is the root itself,
 * `name[]` each item of an array), `id` the field holding the id there (default `id`).
 */
export interface LinkSpec { at: string; kind: LinkKind; id?: string }

const DESCRIPTION = 'This item in the dashboard (MALLARD_PUBLIC_URL/app/#/...): a link for a person';

export function dashboardUrl(publicUrl: string, kind: LinkKind, id: string): string {
  const app = `${publicUrl}/app/#`;
  switch (kind) {
    case 'issue': return `${app}/issues/${encodeURIComponent(id)}`;
    case 'session': return `${app}/sessions/${encodeURIComponent(id)}`;
    case 'alert': return `${app}/alerts/${encodeURIComponent(id)}`;
    // The dashboard lists deploys on one screen; there is no page per deploy.
    case 'deploy': return `${app}/deploys`;
  }
}

type Json = Record<string, unknown>;
type SchemaNode = Record<string, unknown>;

const segments = (at: string) => (at === '' ? [] : at.split('.'));

/** The object schemas a value at this node may be (through allOf, anyOf and nullable unions). */
function objectsOf(node: SchemaNode): SchemaNode[] {
  const found: SchemaNode[] = [];
  if (node.properties && typeof node.properties === 'object') found.push(node);
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    const members = node[key];
    if (Array.isArray(members)) for (const member of members) found.push(...objectsOf(member as SchemaNode));
  }
  return found;
}

/**
 * The listed output schema with `dashboard_url` beside the ids the specs name. A path that does
 * not lead to an object holding the id field throws when the tool is defined, so a link cannot
 * silently go stale when an answer's shape changes.
 */
export function withLinkFields(tool: string, schema: SchemaNode, specs: readonly LinkSpec[]): SchemaNode {
  for (const spec of specs) {
    let nodes = [schema];
    for (const segment of segments(spec.at)) {
      const name = segment.replace(/\[\]$/, '');
      nodes = nodes.flatMap(objectsOf).map((o) => (o.properties as Record<string, SchemaNode>)[name]).filter(Boolean);
      if (segment.endsWith('[]')) nodes = nodes.flatMap((n) => [n, ...((n.anyOf as SchemaNode[] | undefined) ?? [])]).map((n) => n.items as SchemaNode).filter(Boolean);
    }
    const targets = nodes.flatMap(objectsOf).filter((o) => (o.properties as Record<string, unknown>)[spec.id ?? 'id'] !== undefined);
    if (targets.length === 0) throw new Error(`${tool}: no ${spec.id ?? 'id'} at "${spec.at}" in the output schema for a ${spec.kind} link`);
    for (const target of targets) (target.properties as Record<string, unknown>).dashboard_url = { type: 'string', description: DESCRIPTION };
  }
  return schema;
}

/** Adds `dashboard_url` beside each id in the answer (in place); the links by id, for the text. */
export function addLinks(data: Json, specs: readonly LinkSpec[], publicUrl: string): Map<string, string> {
  const links = new Map<string, string>();
  const visit = (value: unknown, rest: string[], spec: LinkSpec) => {
    if (value === null || typeof value !== 'object') return;
    if (rest.length === 0) {
      const item = value as Json;
      const id = item[spec.id ?? 'id'];
      if (typeof id !== 'string' || id === '') return;
      const url = dashboardUrl(publicUrl, spec.kind, id);
      item.dashboard_url = url;
      links.set(id, url);
      return;
    }
    const [segment, ...tail] = rest;
    const child = (value as Json)[segment.replace(/\[\]$/, '')];
    if (segment.endsWith('[]')) {
      if (Array.isArray(child)) for (const item of child) visit(item, tail, spec);
    } else {
      visit(child, tail, spec);
    }
  };
  for (const spec of specs) visit(data, segments(spec.at), spec);
  return links;
}

/**
 * The text with each linked id followed by its link, once (the first time the id is named). A
 * link the text already holds is not repeated: every deploy shares the deploys screen's link,
 * so a list of deploys says it once, after the first.
 */
export function linkText(text: string, links: Map<string, string>): string {
  let out = text;
  for (const [id, url] of links) {
    const at = out.indexOf(id);
    if (at === -1 || out.includes(`(${url})`)) continue;
    const end = at + id.length;
    out = `${out.slice(0, end)} (${url})${out.slice(end)}`;
  }
  return out;
}
