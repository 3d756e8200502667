// Two loopback servers for the clips tests in Chromium: the site (test pages, on one origin)
// and a stand-in for Mallard (another origin: sdk.js, the clips chunk, the SDK config,
// /v1/ingest and /v1/ingest/clips, to the wire contract of issue 28, CORS included). The tests
// read only what this interface gives (configs in, signals and uploads out), so the stand-in
// can be swapped for the real server: serve the same page, set the site's SDK config through
// PATCH /v1/manage/sdk-config, and read clips back through /v1/query/clips.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

export interface SentSignal { id: string; ts: number; type: string; sid: string }
export interface Upload { text: string; body: Record<string, any>; encoding: string | undefined; status: number }

export interface MallardStandIn {
  base: string;
  /** `clips` of the public SDK config per publishable key (absent: clips off). */
  configs: Map<string, Record<string, unknown>>;
  /** Per key, the config's `page_groups` (none when unset). */
  pageGroups: Map<string, { match: string; page: string }[]>;
  /** Per key: 'budget' answers every upload with stored:false, reason budget. */
  answers: Map<string, 'store' | 'budget'>;
  signals(key: string): SentSignal[];
  uploads(key: string): Upload[];
  /** How often the clips chunk was requested. */
  chunkRequests(): number;
  close(): Promise<void>;
}

const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST',
  'access-control-allow-headers': 'content-type, content-encoding, authorization',
  'access-control-max-age': '600',
};

async function body(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const envelope = (res: ServerResponse, status: number, data: unknown, error: unknown = null) =>
  res.writeHead(status, { ...CORS, 'content-type': 'application/json' }).end(JSON.stringify({ data, error }));

function listen(handle: (req: IncomingMessage, res: ServerResponse) => Promise<unknown>): Promise<{ server: Server; base: string }> {
  const server = createServer((req, res) => {
    handle(req, res).catch(() => { if (!res.headersSent) res.writeHead(500).end(); });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })));
}

const stop = (server: Server) => new Promise<void>((resolve) => {
  server.closeAllConnections();
  server.close(() => resolve());
});

export async function startMallard(script: string, chunk: string, version: string): Promise<MallardStandIn> {
  const configs = new Map<string, Record<string, unknown>>();
  const pageGroups = new Map<string, { match: string; page: string }[]>();
  const answers = new Map<string, 'store' | 'budget'>();
  const signals = new Map<string, SentSignal[]>();
  const uploads = new Map<string, Upload[]>();
  let chunkRequests = 0;

  const { server, base } = await listen(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://mallard');
    if (req.method === 'OPTIONS') return res.writeHead(204, CORS).end();
    if (url.pathname === '/sdk.js') return res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
    if (url.pathname === `/sdk/clips-${version}.js`) {
      chunkRequests++;
      return res.writeHead(200, { 'content-type': 'text/javascript' }).end(chunk);
    }
    if (url.pathname === '/v1/sdk-config') {
      const key = url.searchParams.get('key') ?? '';
      return envelope(res, 200, { sample_rate: 1, signals: {}, ignore_selectors: [], page_groups: pageGroups.get(key) ?? [], privacy: {}, clips: configs.get(key) ?? { enabled: false } });
    }
    if (url.pathname === '/v1/ingest' && req.method === 'POST') {
      const batch = JSON.parse((await body(req)).toString('utf8')) as { key: string; sid: string; events: { type: string; id: string; ts: number; signal_type?: string }[] };
      const list = signals.get(batch.key) ?? [];
      for (const e of batch.events) if (e.type === 'signal') list.push({ id: e.id, ts: e.ts, type: e.signal_type!, sid: batch.sid });
      signals.set(batch.key, list);
      return envelope(res, 202, { accepted: batch.events.length, rejected: 0, rejections: [] });
    }
    if (url.pathname === '/v1/ingest/clips' && req.method === 'POST') {
      const raw = await body(req);
      const encoding = req.headers['content-encoding'];
      const text = (encoding === 'gzip' ? gunzipSync(raw) : raw).toString('utf8');
      const upload = JSON.parse(text) as Record<string, any>;
      const record = (status: number) => {
        uploads.set(upload.key, [...(uploads.get(upload.key) ?? []), { text, body: upload, encoding, status }]);
      };
      // As the contract says: every signal named must be a signal this session already sent.
      const known = new Set((signals.get(upload.key) ?? []).filter((s) => s.sid === upload.sid).map((s) => s.id));
      if ((upload.signal_ids ?? []).some((id: string) => !known.has(id))) {
        record(404);
        return envelope(res, 404, null, { code: 'not_found', message: 'unknown signal', details: { field: 'signal_ids' } });
      }
      record(202);
      if (answers.get(upload.key) === 'budget') return envelope(res, 202, { id: upload.id, stored: false, reason: 'budget', bytes: 0 });
      return envelope(res, 202, { id: upload.id, stored: true, bytes: raw.length });
    }
    return res.writeHead(404).end();
  });

  return {
    base, configs, pageGroups, answers,
    signals: (key) => signals.get(key) ?? [],
    uploads: (key) => uploads.get(key) ?? [],
    chunkRequests: () => chunkRequests,
    close: () => stop(server),
  };
}

/** The site: `pages` by path, each page's `{{KEY}}` and `{{MALLARD}}` filled from the query. */
export async function startSite(pages: Record<string, string>): Promise<{ base: string; close(): Promise<void> }> {
  const { server, base } = await listen(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://site');
    const page = pages[url.pathname];
    if (!page) return res.writeHead(404).end();
    const html = page.replaceAll('{{KEY}}', url.searchParams.get('key') ?? '').replaceAll('{{MALLARD}}', url.searchParams.get('mallard') ?? '');
    return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
  });
  return { base, close: () => stop(server) };
}
