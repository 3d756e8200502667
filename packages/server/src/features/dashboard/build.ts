// Where the dashboard comes from: built from packages/dashboard's sources with esbuild (the
// same build as `npm run build -w @mallard/dashboard`), so `npm start` on a fresh clone serves
// it with no build step; where esbuild is not installed (a production install without dev
// dependencies), the prebuilt packages/dashboard/dist/. Every file is kept in memory, gzipped
// once, with an ETag from its content (delivery/static-files.ts, as the SDK script is).
import { readdir, readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { buildOrPrebuilt, encodings } from '../../delivery/static-files.ts';

export interface DashboardFile { body: Buffer; gzipped: Buffer; etag: string; type: string }
export interface Dashboard { index: DashboardFile; assets: ReadonlyMap<string, DashboardFile> }

interface Built { index: string; assets: { name: string; contents: Uint8Array }[] }

const DASHBOARD_DIR = new URL('../../../../dashboard/', import.meta.url);

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

async function readPrebuilt(dir: URL): Promise<Built> {
  const dist = new URL('dist/', dir);
  const names = await readdir(new URL('assets/', dist));
  return {
    index: await readFile(new URL('index.html', dist), 'utf8'),
    assets: await Promise.all(names.map(async (name) => ({ name, contents: await readFile(new URL(`assets/${name}`, dist)) }))),
  };
}

async function buildOrRead(dir: URL): Promise<Built> {
  const dashboard = await import(new URL('build.mjs', dir).href) as typeof import('../../../../dashboard/build.mjs');
  return buildOrPrebuilt(() => dashboard.buildDashboard(), () => readPrebuilt(dir));
}

function file(name: string, contents: Uint8Array | string): DashboardFile {
  const body = Buffer.from(contents);
  return { body, ...encodings(body), type: TYPES[extname(name)] ?? 'application/octet-stream' };
}

/** The dashboard package's files (`dir` is the package directory; tests give another). */
export async function loadDashboard(dir: URL = DASHBOARD_DIR): Promise<Dashboard> {
  const built = await buildOrRead(dir);
  return {
    index: file('index.html', built.index),
    assets: new Map(built.assets.map((a) => [a.name, file(a.name, a.contents)])),
  };
}
