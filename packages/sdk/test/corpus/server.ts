// The corpus's loopback server: serves the SDK's script-tag build, the fixture pages, slow and
// failing endpoints, and stands in for Mallard itself (GET /v1/sdk-config answers each
// session's remote config; POST /v1/ingest is where the SDK's transport delivers, and where the
// corpus reads what it detected). Each browser context carries its session's publishable key
// in a cookie; the page's script tag is rendered with it, so every batch names its session.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { page } from './pages.ts';

export interface Received { type: string; element?: string; label?: string; confidence: number; page: string }

export interface CorpusServer {
  base: string;
  /** Remote config (`signals`) per session key. */
  configs: Map<string, Record<string, unknown>>;
  /** Signals received per session key, in order. */
  signals(key: string): Received[];
  /** Pages viewed per session key, in order. */
  pageviews(key: string): string[];
  close(): Promise<void>;
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const GIF = Buffer.from('R0lGODlhAQABAAAAACw=', 'base64');

function keyOf(req: IncomingMessage): string {
  return /(?:^|;\s*)corpus=([\w-]+)/.exec(req.headers.cookie ?? '')?.[1] ?? 'none';
}

export async function startCorpusServer(script: string): Promise<CorpusServer> {
  const configs = new Map<string, Record<string, unknown>>();
  const received = new Map<string, Received[]>();
  const views = new Map<string, string[]>();

  const ingest = (body: string) => {
    const batch = JSON.parse(body) as { key: string; events: { type: string; page: string; signal_type?: string; element?: string; label?: string; confidence?: number }[] };
    for (const e of batch.events) {
      if (e.type === 'pageview') views.set(batch.key, [...(views.get(batch.key) ?? []), e.page]);
      if (e.type !== 'signal') continue;
      const list = received.get(batch.key) ?? [];
      list.push({ type: e.signal_type!, element: e.element, label: e.label, confidence: e.confidence ?? 1, page: e.page });
      received.set(batch.key, list);
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://corpus');
    const ms = Number(url.searchParams.get('ms') ?? 0);
    switch (url.pathname) {
      case '/sdk.js':
        return res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
      case '/v1/sdk-config': {
        const signals = configs.get(url.searchParams.get('key') ?? '') ?? {};
        return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: { signals }, error: null }));
      }
      case '/v1/ingest': {
        let body = '';
        for await (const chunk of req) body += chunk;
        ingest(body);
        return res.writeHead(202).end('{}');
      }
      case '/api/ok':
        await delay(ms);
        return res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      case '/api/fail':
        await delay(ms);
        return res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"down"}');
      case '/file':
        return res.writeHead(200, { 'content-type': 'application/pdf', 'content-disposition': 'attachment; filename="report.pdf"' }).end('%PDF-1.4\n');
      case '/img':
        await delay(ms);
        return res.writeHead(200, { 'content-type': 'image/gif' }).end(GIF);
      case '/stream': {
        // A page whose body arrives slowly: it reaches neither DOMContentLoaded nor load for `ms`.
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.write(page('/stream', keyOf(req))!.split('<!--rest-->')[0]);
        await delay(ms);
        return res.end('<p>Finally here.</p></main></body></html>');
      }
      default: {
        const html = page(url.pathname, keyOf(req));
        if (!html) return res.writeHead(404).end();
        await delay(ms);
        return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
      }
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => { if (!res.headersSent) res.writeHead(500).end(); });
  });
  // Connections the browser keeps open (a streaming page left behind) must not hold up close().
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    configs,
    signals: (key) => received.get(key) ?? [],
    pageviews: (key) => views.get(key) ?? [],
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
