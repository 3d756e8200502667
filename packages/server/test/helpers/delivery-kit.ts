// Tools for the delivery tests: harness options (logs captured, DNS from a table), a local
// HTTP receiver, a local SMTP server, and a socket guard that refuses (and records) any
// connection to a non-loopback address, so no test packet leaves the host.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeEach, expect } from 'vitest';
import type { Resolver } from '../../src/delivery/targets.ts';
import type { Harness, HarnessOptions } from './harness.ts';

// ---------------------------------------------------------------- socket guard

const LOOPBACK = (address: string) => /^127\./.test(address) || address === '::1' || /^::ffff:127\./i.test(address);
export const guardViolations: string[] = [];
/** Which addresses a socket may connect to; tests of the guard itself narrow it. */
export const guard = { allows: LOOPBACK };
let guardInstalled = false;

type TcpConnect = (this: unknown, req: unknown, address: string, port: number, ...rest: unknown[]) => number;

/** From now on in this process, every TCP connect (after any DNS lookup, with the address it
 * would really use) to anything but loopback fails with ECONNREFUSED before a packet is sent. */
export function installLoopbackGuard() {
  if (guardInstalled) return;
  guardInstalled = true;
  // The handle behind every net.Socket: the one place that sees the final address.
  const { TCP } = (process as unknown as { binding(name: string): { TCP: { prototype: Record<string, TcpConnect> } } }).binding('tcp_wrap');
  for (const method of ['connect', 'connect6']) {
    const original = TCP.prototype[method];
    TCP.prototype[method] = function guarded(req, address, port, ...rest) {
      if (!guard.allows(address)) {
        guardViolations.push(`${address}:${port}`);
        return -111; // UV_ECONNREFUSED
      }
      return original.call(this, req, address, port, ...rest);
    };
  }
}

// ---------------------------------------------------------------- the delivery harness

/** A resolver from a table; anything else does not resolve (never the system DNS). */
export function tableResolver(table: Record<string, string | string[]>): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const resolve = async (hostname: string) => {
    calls.push(hostname);
    const entry = table[hostname.toLowerCase()];
    if (!entry) throw new Error(`ENOTFOUND ${hostname}`);
    return (Array.isArray(entry) ? entry : [entry]).map((address) => ({ address, family: (net.isIP(address) === 6 ? 6 : 4) as 4 | 6 }));
  };
  return Object.assign(resolve, { calls });
}

/**
 * The harness the delivery suites use: the wall clock (Standard Webhooks receivers check the
 * timestamp against real time), every log line kept at trace level, raised limits, and DNS
 * from a table, so that nothing resolves unless a test lists it.
 */
export function deliveryOptions(options: HarnessOptions = {}): HarnessOptions {
  return { wallClock: true, captureLogs: true, raisedLimits: true, resolver: tableResolver({}), ...options };
}

// ---------------------------------------------------------------- HTTP receiver

export interface Received { method: string; url: string; headers: IncomingHttpHeaders; body: string }
type Responder = (req: Received) => { status: number; body?: string } | undefined;

/** A local HTTP server on 127.0.0.1 that records every request; `respond` decides answers. */
export class Receiver {
  readonly requests: Received[] = [];
  private responders: Responder[] = [];
  private server: Server;
  port = 0;

  constructor() {
    this.server = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => { body += c; });
      req.on('end', () => {
        const received = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
        this.requests.push(received);
        let answer: { status: number; body?: string } | undefined;
        for (const r of this.responders) { answer = r(received); if (answer) break; }
        answer ??= { status: 200, body: '{"ok":true}' };
        res.writeHead(answer.status, { 'content-type': 'application/json' });
        res.end(answer.body ?? '');
      });
    });
  }

  async start() {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  url(path = '/') { return `http://127.0.0.1:${this.port}${path}`; }
  /** Answers are tried newest first; a responder returning undefined passes. */
  respond(responder: Responder) { this.responders.unshift(responder); }
  reset() { this.requests.length = 0; this.responders = []; }
  to(path: string) { return this.requests.filter((r) => r.url.split('?')[0] === path); }
  async close() {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
  /** Listens again on the port it had before `close`: a receiver back from an outage. */
  async reopen() {
    await new Promise<void>((resolve) => this.server.listen(this.port, '127.0.0.1', resolve));
    return this;
  }
}

// ---------------------------------------------------------------- SMTP server

export interface ReceivedMail { from: string; to: string[]; raw: string }

export class MailServer {
  readonly mails: ReceivedMail[] = [];
  private server: SMTPServer;
  port = 0;

  /** With `login`, the server demands it (AUTH over plain text, as a local relay may). */
  constructor(login?: { user: string; password: string }) {
    this.server = new SMTPServer({
      logger: false,
      ...(login
        ? {
          authOptional: false, allowInsecureAuth: true, disabledCommands: ['STARTTLS'],
          onAuth: (auth, _session, callback) => (auth.username === login.user && auth.password === login.password
            ? callback(null, { user: auth.username })
            : callback(new Error('Invalid username or password'))),
        }
        : { authOptional: true, disabledCommands: ['STARTTLS', 'AUTH'] }),
      onData: (stream, session, callback) => {
        let raw = '';
        stream.setEncoding('utf8');
        stream.on('data', (c: string) => { raw += c; });
        stream.on('end', () => {
          const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
          this.mails.push({ from, to: session.envelope.rcptTo.map((r) => r.address), raw });
          callback();
        });
      },
    });
  }

  async start() {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', () => resolve()));
    this.port = (this.server.server.address() as AddressInfo).port;
    return this;
  }

  get url() { return `smtp://127.0.0.1:${this.port}`; }
  async close() { await new Promise<void>((resolve) => this.server.close(() => resolve())); }
}

/** The decoded text of each MIME part of a message, by content type (a tiny parser, enough for nodemailer's output). */
export function mimeParts(raw: string): Record<string, string> {
  const parts: Record<string, string> = {};
  const visit = (entity: string) => {
    const split = entity.indexOf('\r\n\r\n');
    const head = entity.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
    const body = entity.slice(split + 4);
    const type = /^content-type:\s*([^;\r\n]+)/im.exec(head)?.[1].trim().toLowerCase() ?? 'text/plain';
    if (type.startsWith('multipart/')) {
      const boundary = /boundary="?([^";\r\n]+)"?/i.exec(head)?.[1];
      if (!boundary) return;
      for (const piece of body.split(`--${boundary}`).slice(1)) {
        if (piece.startsWith('--')) break;
        visit(piece.replace(/^\r\n/, ''));
      }
      return;
    }
    const encoding = /^content-transfer-encoding:\s*(\S+)/im.exec(head)?.[1].toLowerCase();
    let text = body.replace(/\r\n$/, '');
    if (encoding === 'quoted-printable') {
      text = Buffer.from(text.replace(/=\r\n/g, '').replace(/=([0-9A-F]{2})/gi, (_m, h: string) => String.fromCharCode(parseInt(h, 16))), 'latin1').toString('utf8');
    } else if (encoding === 'base64') {
      text = Buffer.from(text, 'base64').toString('utf8');
    }
    parts[type] = text;
  };
  visit(raw);
  return parts;
}

/** Waits (polling) until the check passes; for work done by a worker on its own timer. */
export async function eventually<T>(check: () => Promise<T | undefined | false> | T | undefined | false, what: string, tries = 400): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const value = await check();
    if (value) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`gave up waiting for ${what}`);
}

/**
 * The hooks the delivery suites share: before each test a clean receiver and a clock at real
 * time (signatures carry real timestamps and receivers check them); at the end the receiver is
 * closed, and nothing in the file ever tried to reach a non-loopback address.
 */
export function deliverySuiteHooks(h: Harness, receiver: () => Receiver) {
  afterAll(async () => {
    await receiver()?.close();
    expect(guardViolations).toEqual([]);
  });
  beforeEach(() => {
    receiver().reset();
    h.clock.set(Date.now());
  });
}
