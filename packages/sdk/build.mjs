// Builds the SDK with esbuild: dist/mallard.mjs (ESM, for bundlers), dist/mallard.js (the
// script-tag build, an IIFE that sets window.Mallard) and dist/clips.js (the clips chunk, an
// IIFE with rrweb's recorder that sets window.MallardClips; the core loads it only when clips
// are on). The server builds the script-tag file and the chunk from source the same way
// through buildScriptTag() and buildClips().
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = dirname(fileURLToPath(import.meta.url));
export const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
/** Gzip budgets in bytes (issue 28): the core script-tag build and the clips chunk. */
export const budgets = { core: 12 * 1024, clips: 45 * 1024 };

const common = {
  bundle: true,
  minify: true,
  write: false,
  target: 'es2022',
  define: { __MALLARD_VERSION__: JSON.stringify(version) },
  legalComments: 'none',
  // Internal property names shared between modules; none is a DOM, option or wire-format name.
  mangleProps: /^(?:stop|click|exit|respectDnt|requireConsent|part|anchored|changes|touch|visitorId|started|interactive|looks|excluded|burst|points|point|again|reported|ignored|emit|win|doc|session|pageview|leave|items|timer|batchSize|intervalMs|maxQueue|responses|requests|claims|mark|responded|shifted|route|friction|submits|move|times|edited|nodes)$/,
  logLevel: 'silent',
};

async function build(entry, format, plugins = [], options = common) {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({ ...options, entryPoints: [join(root, 'src', entry)], format, plugins });
  return result.outputFiles[0].text;
}

/**
 * The script-tag build (IIFE) as text. `without`: detector files (in src/detectors, e.g.
 * 'thrash-cursor.ts') replaced by detectors that do nothing, to measure what each one costs.
 */
export const buildScriptTag = (without = []) => build('script.ts', 'iife', without.length ? [stubDetectors(without)] : []);
/** The ESM build as text. */
export const buildModule = () => build('index.ts', 'esm');
/**
 * The clips chunk (IIFE) as text. Without mangleProps: rrweb's property names meet the DOM's,
 * and the host object's names are shared with the core, built apart.
 */
export const buildClips = () => build('clips/entry.ts', 'iife', [], { ...common, mangleProps: undefined });

function stubDetectors(files) {
  const paths = new Set(files.map((file) => join(root, 'src', 'detectors', file)));
  return {
    name: 'stub-detectors',
    setup(b) {
      b.onLoad({ filter: /[\\/]detectors[\\/][\w-]+\.ts$/ }, ({ path }) => {
        if (!paths.has(path)) return undefined;
        const names = [...readFileSync(path, 'utf8').matchAll(/export function (\w+)/g)].map((m) => m[1]);
        return { loader: 'ts', contents: names.map((name) => `export function ${name}() { return { stop() {} }; }`).join('\n') };
      });
    },
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const dist = join(root, 'dist');
  await mkdir(dist, { recursive: true });
  await writeFile(join(dist, 'mallard.js'), await buildScriptTag());
  await writeFile(join(dist, 'mallard.mjs'), await buildModule());
  await writeFile(join(dist, 'clips.js'), await buildClips());
  console.log(`built @mallard/sdk ${version} into ${dist}`);
}
