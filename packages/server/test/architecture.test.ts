// The dependency rules of the server's layers (packages/server/src/README.md), checked over the
// static import graph, type-only imports included. A file's floor is the floor of the folder it
// lives in (or, for the few files at the top of src/, of the file itself), never of its name:
//   store/, auth/, clock.ts, config.ts <- domain/ <- events/, jobs/, audit/, logs/
//   <- ingest/, pipeline/, delivery/ <- features/ (the services and the catalog)
//   <- http/, mcp/, cli/ (the faces) <- app.ts and its wiring (routes.ts) <- main.ts, server.ts, worker.ts, demo/, simulate/
// Only faces and the app import http/; nothing below features/ imports features/; the CLI
// reaches data through services, never through another face; no cycles.
// (What `mallard worker` loads at run time is checked apart, in worker-imports.test.ts.)
import { describe, expect, it } from 'vitest';
import { cycles, importGraph, type ImportEdge } from './helpers/import-graph.ts';

const FLOORS = ['base', 'domain', 'support', 'engine', 'service', 'face', 'app', 'entry'] as const;
type Floor = (typeof FLOORS)[number];

/** The floor of each folder under src/, and of each file at its top. */
const FLOOR_OF: Record<string, Floor> = {
  'store': 'base', 'auth': 'base', 'clock.ts': 'base', 'config.ts': 'base',
  'domain': 'domain',
  'events': 'support', 'jobs': 'support', 'audit': 'support', 'logs': 'support',
  'ingest': 'engine', 'pipeline': 'engine', 'delivery': 'engine',
  'features': 'service',
  'http': 'face', 'mcp': 'face', 'cli': 'face',
  'app.ts': 'app', 'routes.ts': 'app',
  'main.ts': 'entry', 'server.ts': 'entry', 'worker.ts': 'entry', 'demo': 'entry', 'simulate': 'entry',
};

/** The floor of a source file, from the folder it lives in. */
function floorOf(file: string): Floor {
  const floor = FLOOR_OF[file.split('/')[0]];
  if (!floor) throw new Error(`${file} has no floor: add its folder to the layering (and to src/README.md)`);
  return floor;
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

  it('lets only faces and the app import http/', () => {
    const wrong = edges.filter((e) => e.to.startsWith('http/') && !e.from.startsWith('http/') && !['face', 'app'].includes(floorOf(e.from)))
      .map(describeEdge);
    expect(wrong).toEqual([]);
  });

  it('keeps everything below features/ from importing features/', () => {
    const wrong = edges.filter((e) => e.to.startsWith('features/') && !e.from.startsWith('features/') && rank(e.from) < rank('features/x/service.ts'))
      .map(describeEdge);
    expect(wrong).toEqual([]);
  });

  it('lets the CLI reach data through services only, never through another face', () => {
    const wrong = edges.filter((e) => e.from.startsWith('cli/') && (e.to.startsWith('http/') || e.to.startsWith('mcp/'))).map(describeEdge);
    expect(wrong).toEqual([]);
  });

  it('has no import cycles, type-only imports included', () => {
    expect(cycles(files, edges)).toEqual([]);
  });

  it('catches what it claims to: an upward edge, a cycle and a file outside the layering are each reported', () => {
    const planted: ImportEdge[] = [
      { from: 'domain/errors.ts', to: 'features/issues/service.ts' },
      { from: 'features/issues/service.ts', to: 'domain/errors.ts' },
      // A file named like a route inside a feature is still a service: it may not import http/.
      { from: 'features/issues/routes.ts', to: 'http/envelope.ts' },
    ];
    expect(planted.filter((e) => rank(e.to) > rank(e.from))).toHaveLength(2);
    expect(cycles(['domain/errors.ts', 'features/issues/service.ts'], planted.slice(0, 2))).toHaveLength(1);
    expect(() => floorOf('newfolder/thing.ts')).toThrow(/no floor/);
  });
});
