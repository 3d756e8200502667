#!/usr/bin/env node
// A smoke run of a checkout on whatever `node` runs this script: migrate, bootstrap, serve,
// ingest, a page snapshot through the clips upload, one pipeline cycle, every GET /v1/query route
// of the OpenAPI document, the SDK build.
// CI runs it under Node 22 and 24 (scripts/node-versions.sh); the full suite runs on the
// machine's own Node. Plain JavaScript, so it needs nothing but the checkout's node_modules.
//
//   node scripts/smoke.mjs                      SQLite in a temporary directory
//   SMOKE_DATABASE_URL=postgres://... node scripts/smoke.mjs   also PostgreSQL (migrated in place;
//                                                            each run bootstraps its own org)
import { spawn, execFileSync } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'packages/server/bin/mallard.js');
const secret = 'smoke-only-secret-smoke-only-secret-0123';

function step(message) {
  console.log(`[smoke ${process.version}] ${message}`);
}

function fail(message) {
  throw new Error(`[smoke ${process.version}] ${message}`);
}

function mallard(env, ...args) {
  return execFileSync(process.execPath, [cli, ...args], { env, cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function waitReady(base, child) {
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) fail(`serve exited with ${child.exitCode} before /readyz`);
    try {
      if ((await fetch(`${base}/readyz`)).status === 200) return;
    } catch { /* not listening yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  fail('serve never answered /readyz');
}

// Values for the required query parameters of the read routes; a route that requires one not
// listed here fails the smoke, so a new route is never silently skipped.
const SESSION_ID = 'a'.repeat(32);
const PARAMS = { page: '/checkout', element: 'button.pay', days: '7', session_id: SESSION_ID, selector: 'button.pay', limit: '20', min_friction_weight: '0', table: 'signals', a: '/checkout', b: '/checkout', steps: '/,/checkout' };

async function smoke(databaseUrl) {
  const env = { ...process.env, DATABASE_URL: databaseUrl, MALLARD_SECRET: secret, MALLARD_DEMO: '0', LOG_LEVEL: 'warn', NODE_ENV: 'development' };
  step(`migrate ${databaseUrl.split(':')[0]}`);
  mallard(env, 'migrate');
  const boot = JSON.parse(mallard(env, 'bootstrap', '--org', 'Smoke', '--site-name', 'Shop', '--site-url', 'https://shop.example',
    '--email', `smoke-${Date.now()}@example.com`, '--password', 'smoke-password-1', '--json'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  step(`serve on ${base}`);
  const server = spawn(process.execPath, [cli, 'serve', '--no-worker'], { env: { ...env, PORT: String(port), HOST: '127.0.0.1' }, cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  try {
    await waitReady(base, server);
    // Five visitors, so the page has the active users the scoring needs (DOMAIN.md).
    const now = Date.now();
    let accepted = 0;
    for (let v = 0; v < 5; v++) {
      const events = [];
      for (let i = 0; i < 4; i++) {
        events.push({ type: 'pageview', ts: now - 60_000 + i * 1000, page: '/checkout' });
        events.push({ type: 'signal', ts: now - 59_000 + i * 1000, page: '/checkout', signal_type: 'rage_click', element: 'button.pay', label: 'Pay now', confidence: 0.9, hx: 500, hy: 400, vx: 700, vy: 300 });
      }
      const ingest = await fetch(`${base}/v1/ingest`, {
        method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ key: boot.keys.publishable, sid: v === 0 ? SESSION_ID : `${v}`.repeat(32), vid: `${v}`.repeat(32), url: 'https://shop.example/checkout', ts: now, events }),
      });
      const ingested = await ingest.json();
      if (ingest.status !== 202 || ingested.data.accepted !== events.length) fail(`ingest answered ${ingest.status} ${JSON.stringify(ingested)}`);
      accepted += ingested.data.accepted;
    }
    step(`ingest: ${accepted} events accepted`);
    // A page snapshot through the clips upload (brotli-stored), so the page-snapshot read has one.
    const snapshot = await fetch(`${base}/v1/ingest/clips`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36' },
      body: JSON.stringify({
        key: boot.keys.publishable, sid: SESSION_ID, id: 'ab'.repeat(16), kind: 'snapshot', page: '/checkout', started_at: now, ended_at: now, width: 1280, height: 800,
        events: [
          { type: 4, timestamp: now, data: { href: 'https://shop.example/checkout', width: 1280, height: 800 } },
          { type: 2, timestamp: now, data: { node: { type: 0, id: 1, childNodes: [] }, initialOffset: { top: 0, left: 0 } } },
        ],
      }),
    });
    const snapped = await snapshot.json();
    if (snapshot.status !== 202 || snapped.data.stored !== true) fail(`the snapshot upload answered ${snapshot.status} ${JSON.stringify(snapped)}`);
    step('clips: a page snapshot stored');

    mallard(env, 'pipeline', '--site', boot.site_id);
    const auth = { authorization: `Bearer ${boot.keys.secret}` };
    const doc = await (await fetch(`${base}/v1/openapi.json`)).json();
    let routes = 0;
    for (const [path, item] of Object.entries(doc.paths)) {
      if (!path.startsWith('/v1/query/') || path.includes('{') || !item.get) continue;
      const query = new URLSearchParams();
      for (const p of item.get.parameters ?? []) {
        if (p.in !== 'query' || !p.required) continue;
        if (!(p.name in PARAMS)) fail(`${path} requires "${p.name}"; add a value to PARAMS in scripts/smoke.mjs`);
        query.set(p.name, PARAMS[p.name]);
      }
      const res = await fetch(`${base}${path}${query.size ? `?${query}` : ''}`, { headers: auth });
      const body = await res.text();
      if (res.status !== 200) fail(`GET ${path} answered ${res.status}: ${body.slice(0, 200)}`);
      routes++;
    }
    const scores = (await (await fetch(`${base}/v1/query/scores`, { headers: auth })).json()).data;
    const checkout = scores.site.pages.find((p) => p.page === '/checkout');
    if (!checkout || !(checkout.score > 0)) fail(`the pipeline did not score /checkout: ${JSON.stringify(scores).slice(0, 300)}`);
    step(`${routes} read routes answered 200; /checkout scored ${checkout.score}`);
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => (server.exitCode !== null ? r() : server.once('exit', r)));
  }
}

const dir = mkdtempSync(join(tmpdir(), 'mallard-smoke-'));
try {
  await smoke(`sqlite:${join(dir, 'smoke.db')}`);
  if (process.env.SMOKE_DATABASE_URL) await smoke(process.env.SMOKE_DATABASE_URL);
  step('SDK build');
  execFileSync('npm', ['run', 'build', '-w', '@mallard/sdk'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  if (!existsSync(join(root, 'packages/sdk/dist'))) fail('the SDK build wrote no dist/');
  step('passed');
} finally {
  rmSync(dir, { recursive: true, force: true });
}
