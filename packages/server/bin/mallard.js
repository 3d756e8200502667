#!/usr/bin/env node
// Starts the CLI from the compiled JavaScript in dist/ (built by `npm install` or
// `npm run build`) when it is at least as new as every source file; otherwise from the
// TypeScript sources through tsx, so an edited checkout never runs stale code. The compiled
// path starts faster and uses less memory (BENCHMARKS.md, "start").
import { join } from 'node:path';
import { startPath } from './start-path.js';

if (startPath(join(import.meta.dirname, '..')) === 'dist') {
  await import('../dist/main.js');
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import('../src/main.ts');
}
