#!/usr/bin/env node
// Starts the CLI from the compiled JavaScript in dist/ (built by `npm install` or
// `npm run build`) when it is at least as new as every source file; otherwise from the
// TypeScript sources through tsx, so an edited checkout never runs stale code. The compiled
// path starts faster and uses less memory (BENCHMARKS.md, "start path");
// MALLARD_FROM_SOURCE=1 forces the sources.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');

function builtAndFresh() {
  if (process.env.MALLARD_FROM_SOURCE === '1') return false;
  let built;
  try { built = statSync(join(root, 'dist', 'BUILT')).mtimeMs; } catch { return false; }
  const src = join(root, 'src');
  for (const file of readdirSync(src, { recursive: true, encoding: 'utf8' })) {
    if (statSync(join(src, file)).mtimeMs > built) return false;
  }
  return true;
}

if (builtAndFresh()) {
  await import('../dist/main.js');
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/main.ts');
}
