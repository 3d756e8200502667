// `mallard worker` serves no HTTP, so it must not load Fastify or any route: this walks what
// the worker's entry points load at run time (static imports and re-exports; `import type`
// is erased and `import()` runs only in the command that asks for it) and fails on the way
// to the HTTP app.
import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../src');

/** The modules a file loads when it runs: relative files resolved, packages by name. */
function runtimeImports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  const specifiers: string[] = [];
  for (const node of source.statements) {
    if (ts.isImportDeclaration(node) && !node.importClause?.isTypeOnly) specifiers.push((node.moduleSpecifier as ts.StringLiteral).text);
    if (ts.isExportDeclaration(node) && node.moduleSpecifier && !node.isTypeOnly) specifiers.push((node.moduleSpecifier as ts.StringLiteral).text);
  }
  return specifiers.map((s) => (s.startsWith('.') ? resolve(dirname(file), s) : s));
}

/** Every module reachable from the entry files, each with the path that first reached it. */
function loadedFrom(...entries: string[]): Map<string, string[]> {
  const seen = new Map<string, string[]>();
  const queue = entries.map((e) => ({ module: resolve(SRC, e), path: [e] }));
  while (queue.length) {
    const { module, path } = queue.shift()!;
    if (seen.has(module)) continue;
    seen.set(module, path);
    if (!module.startsWith('/')) continue; // a package: its own imports are its business
    for (const next of runtimeImports(module)) queue.push({ module: next, path: [...path, next.startsWith('/') ? relative(SRC, next) : next] });
  }
  return seen;
}

const httpOnly = (module: string) =>
  module === 'fastify' || module.startsWith('fastify/') || module.startsWith('@fastify/')
  || module === resolve(SRC, 'app.ts') || module === resolve(SRC, 'server.ts') || module.startsWith(resolve(SRC, 'http') + '/')
  || (module.startsWith(SRC) && module.endsWith('/routes.ts'));

describe('mallard worker', () => {
  it('loads neither Fastify nor the app, the http layer or any route module', () => {
    const loaded = loadedFrom('main.ts', 'worker.ts');
    // The walk itself works: it reaches the worker's own parts.
    expect(loaded.has(resolve(SRC, 'delivery/worker.ts'))).toBe(true);
    expect(loaded.has(resolve(SRC, 'pipeline/scheduler.ts'))).toBe(true);
    expect(loaded.has('pino')).toBe(true);
    const offending = [...loaded].filter(([module]) => httpOnly(module)).map(([, path]) => path.join(' -> '));
    expect(offending).toEqual([]);
  });

  it('the check sees the HTTP app where it is loaded: from the server', () => {
    const loaded = loadedFrom('server.ts');
    expect(loaded.has('fastify')).toBe(true);
    expect([...loaded.keys()].some((m) => m.endsWith('/http/catalog-routes.ts'))).toBe(true);
  });
});
