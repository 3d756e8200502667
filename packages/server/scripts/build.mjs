// Compiles src/ to dist/ (one JavaScript file per TypeScript file, same layout, so every
// `new URL(..., import.meta.url)` still points where it did), for bin/mallard.js to start
// without the runtime TypeScript loader: measured in BENCHMARKS.md ("start path"), the
// loader costs seconds of start-up and tens of megabytes of memory. Runs on `npm install`
// (the root package's `prepare`) and with `npm run build`. Written to a temporary folder and
// swapped in, so a process starting meanwhile sees the old build or the new one, never half.
import { build } from 'esbuild';
import { cpSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(import.meta.dirname, '..');
const src = join(root, 'src');
const dist = join(root, 'dist');
const staging = join(root, `dist.building-${process.pid}`);

const files = readdirSync(src, { recursive: true, encoding: 'utf8' });
const entryPoints = files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')).map((f) => join(src, f));
// Read at run time beside the code that reads them: the read pool's worker, the demo's page snapshots.
const copied = files.filter((f) => f.endsWith('.cjs') || f.endsWith('.json'));

rmSync(staging, { recursive: true, force: true });
await build({
  entryPoints,
  outdir: staging,
  outbase: src,
  // "bundle" only so that the plugin below sees every import; each one stays external.
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  logLevel: 'warning',
  plugins: [{
    name: 'keep-imports',
    setup(b) {
      b.onResolve({ filter: /.*/ }, (args) => {
        if (args.kind === 'entry-point') return undefined;
        // Relative imports name the .ts source; the compiled file next to it is .js.
        const path = args.path.startsWith('.') ? args.path.replace(/\.ts$/, '.js') : args.path;
        return { path, external: true };
      });
    },
  }],
});
for (const file of copied) cpSync(join(src, file), join(staging, file));
// bin/mallard.js uses dist/ only while no source file is newer than this stamp.
writeFileSync(join(staging, 'BUILT'), `${new Date().toISOString()}\n`);

rmSync(dist, { recursive: true, force: true });
renameSync(staging, dist);
console.log(`mallard: compiled ${entryPoints.length} files to ${relative(process.cwd(), dist) || '.'}`);
