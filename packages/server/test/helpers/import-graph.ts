// The static import graph of the server's sources, type-only imports included, read with
// TypeScript's own pre-processor (no type checking, so it takes well under a second).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

export const SRC = resolve(import.meta.dirname, '../../src');

export interface ImportEdge { from: string; to: string }

/** Every .ts file under src, as a path relative to src with forward slashes. */
export function sourceFiles(root = SRC): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(relative(root, path).split('\\').join('/'));
    }
  };
  walk(root);
  return out.sort();
}

/** Relative imports between source files; bare specifiers (packages) are returned apart. */
export function importGraph(root = SRC): { files: string[]; edges: ImportEdge[]; packages: Map<string, Set<string>> } {
  const files = sourceFiles(root);
  const known = new Set(files);
  const edges: ImportEdge[] = [];
  const packages = new Map<string, Set<string>>();
  for (const file of files) {
    const info = ts.preProcessFile(readFileSync(join(root, file), 'utf8'), true, true);
    for (const { fileName } of info.importedFiles) {
      const outside = fileName.startsWith('.') && relative(root, resolve(root, dirname(file), fileName)).startsWith('..');
      // Packages, and files outside src (the SDK's build script), are not nodes of the graph.
      if (!fileName.startsWith('.') || outside) {
        const set = packages.get(file) ?? new Set<string>();
        set.add(fileName);
        packages.set(file, set);
        continue;
      }
      const target = relative(root, resolve(root, dirname(file), fileName)).split('\\').join('/');
      if (!known.has(target)) throw new Error(`${file} imports ${fileName}, which is not a source file`);
      edges.push({ from: file, to: target });
    }
  }
  return { files, edges, packages };
}

/** Strongly connected components with more than one file (or a file importing itself). */
export function cycles(files: string[], edges: ImportEdge[]): string[][] {
  const next = new Map<string, string[]>(files.map((f) => [f, []]));
  for (const e of edges) next.get(e.from)!.push(e.to);
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v)!) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || next.get(v)!.includes(v)) found.push(component.sort());
    }
  };
  for (const f of files) if (!index.has(f)) visit(f);
  return found;
}
