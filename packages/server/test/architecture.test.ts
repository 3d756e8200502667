// The dependency rules of the server's layers (packages/server/src/README.md), checked over the
// static import graph, type-only imports included:
//   store, auth, clock, config <- domain <- events, jobs, audit, logs <- ingest, pipeline, delivery
//   <- feature services <- routes and other faces <- app <- entry points
// Only routes and app.ts import http/; nothing below features/ imports features/; no cycles.
// (What `mallard worker` loads at run time is checked apart, in worker-imports.test.ts.)
import { describe, expect, it } from 'vitest';
import { cycles, importGraph, type ImportEdge } from './helpers/import-graph.ts';

const FLOORS = ['base', 'domain', 'support', 'engine', 'service', 'face', 'app', 'entry'] as const;
type Floor = (typeof FLOORS)[number];

/** The floor of a source file, from where it lives. */
function floorOf(file: string): Floor {
  const [top, second, third] = file.split('/');
  if (['store', 'auth'].includes(top) || file === 'clock.ts' || file === 'config.ts') return 'base';
  if (top === 'domain') return 'domain';
  if (['events', 'jobs', 'audit', 'logs'].includes(top)) return 'support';
  if (['ingest', 'pipeline', 'delivery'].includes(top)) return top === 'ingest' && second === 'routes.ts' ? 'face' : 'engine';
  if (top === 'features') {
    if (second === 'index.ts') return 'app';
    return third === 'routes.ts' || third === 'cli.ts' || third?.endsWith('-routes.ts') ? 'face' : 'service';
  }
  if (top === 'http' || top === 'mcp' || top === 'cli') return 'face';
  if (file === 'app.ts') return 'app';
  if (['main.ts', 'server.ts', 'worker.ts'].includes(file) || ['demo', 'simulate'].includes(top)) return 'entry';
  throw new Error(`${file} has no floor: add its folder to the layering (and to src/README.md)`);
}

const rank = (file: string) => FLOORS.indexOf(floorOf(file));
const describeEdge = (e: ImportEdge) => `${e.from} (${floorOf(e.from)}) -> ${e.to} (${floorOf(e.to)})`;

const { files, edges } = importGraph();

describe('the layering of the server', () => {
  it('gives every source file a floor', () => {
    expect(files.length).toBeGreaterThan(50);
    for (const file of files) expect(FLOORS).toContain(floorOf(file));
  });

  it('imports only downward or within a floor', () => {
    const upward = edges.filter((e) => rank(e.to) > rank(e.from)).map(describeEdge);
    expect(upward).toEqual([]);
  });

  it('lets only routes, faces and app.ts import http/', () => {
    const wrong = edges.filter((e) => e.to.startsWith('http/') && !e.from.startsWith('http/') && !['face', 'app'].includes(floorOf(e.from)))
      .map(describeEdge);
    expect(wrong).toEqual([]);
  });

  it('keeps everything below features/ from importing features/', () => {
    const wrong = edges.filter((e) => e.to.startsWith('features/') && !e.from.startsWith('features/') && rank(e.from) < rank('features/x/service.ts'))
      .map(describeEdge);
    expect(wrong).toEqual([]);
  });

  it('has no import cycles, type-only imports included', () => {
    expect(cycles(files, edges)).toEqual([]);
  });

  it('catches what it claims to: an upward edge, an http import and a cycle are each reported', () => {
    const planted: ImportEdge[] = [
      { from: 'domain/errors.ts', to: 'features/issues/service.ts' },
      { from: 'features/issues/service.ts', to: 'domain/errors.ts' },
    ];
    expect(planted.filter((e) => rank(e.to) > rank(e.from))).toHaveLength(1);
    expect(cycles(['domain/errors.ts', 'features/issues/service.ts'], planted)).toHaveLength(1);
    expect(() => floorOf('newfolder/thing.ts')).toThrow(/no floor/);
  });
});
