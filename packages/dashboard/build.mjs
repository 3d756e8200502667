// Builds the dashboard with esbuild: the entry script, the chunks it imports on demand (the
// clip player and the snapshot rebuild, so the first load stays small), one CSS bundle (uPlot's
// stylesheet included) and the icon, each named by its content hash, plus the
// entry page that names them. The server builds it the same way through buildDashboard() at start, so `npm start`
// needs no build step; `npm run build` writes dist/ for installs without esbuild.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = dirname(fileURLToPath(import.meta.url));
export const version = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version;
/** Where the server mounts the app; asset URLs in the entry page are absolute under it. */
export const BASE = '/app/';

const hashName = (name, contents) => {
  const dot = name.lastIndexOf('.');
  const hash = createHash('sha256').update(contents).digest('base64url').slice(0, 10);
  return `${name.slice(0, dot)}-${hash}${name.slice(dot)}`;
};

/** The entry page: no inline script or style, so the strict CSP holds. */
function entryPage({ script, style, icon }) {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Mallard</title>
<link rel="icon" type="image/svg+xml" href="${BASE}assets/${icon}">
<link rel="stylesheet" href="${BASE}assets/${style}">
<script type="module" src="${BASE}assets/${script}"></script>
</head>
<body>
<div id="app"><p class="boot">Loading Mallard…</p></div>
<noscript>The Mallard dashboard needs JavaScript. The API works without it: see /docs.</noscript>
</body>
</html>
`;
}

/** The app as files: `index` (the entry page) and `assets` (content-hashed names). */
export async function buildDashboard() {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: [join(root, 'src', 'main.tsx')],
    bundle: true,
    minify: true,
    write: false,
    format: 'esm',
    splitting: true,
    target: ['chrome109', 'firefox115', 'safari16'],
    outdir: join(root, 'out'),
    entryNames: '[name]-[hash]',
    chunkNames: 'chunk-[hash]',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    legalComments: 'none',
    logLevel: 'silent',
  });
  const assets = result.outputFiles.map((file) => ({ name: basename(file.path), contents: file.contents }));
  const icon = readFileSync(join(root, 'src', 'icon.svg'));
  const iconName = hashName('icon.svg', icon);
  assets.push({ name: iconName, contents: new Uint8Array(icon) });
  const script = assets.find((a) => a.name.startsWith('main-') && a.name.endsWith('.js'))?.name;
  const style = assets.find((a) => a.name.endsWith('.css'))?.name;
  if (!script || !style) throw new Error('the dashboard build produced no script or no stylesheet');
  return { version, index: entryPage({ script, style, icon: iconName }), assets };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const dist = join(root, 'dist');
  const built = await buildDashboard();
  await rm(dist, { recursive: true, force: true });
  await mkdir(join(dist, 'assets'), { recursive: true });
  await writeFile(join(dist, 'index.html'), built.index);
  for (const asset of built.assets) await writeFile(join(dist, 'assets', asset.name), asset.contents);
  console.log(`built @mallard/dashboard ${version} into ${dist} (${built.assets.map((a) => a.name).join(', ')})`);
}
