// Sending clips and snapshots to POST /v1/ingest/clips: gzip in the browser (CompressionStream;
// plain JSON where it is missing), one upload at a time, never an exception into the page.
// A 404 may mean the signal batch is still on its way: the core queue is flushed again and the
// upload retried once after RETRY_404_MS. A 429 is retried once after its Retry-After.
// Everything else is final: 202 (stored, or a polite no), 401/403 (stop), other errors (drop).
// When the page goes away, `atExit` hands an upload to the browser at once instead: compressed
// synchronously (fflate; no async step runs after pagehide), sent with fetch keepalive when it
// fits the browser's keepalive limit, its answer never read.
import { gzipSync, strToU8 } from 'fflate';

export const MAX_COMPRESSED = 1024 * 1024;
export const MAX_JSON = 8 * 1024 * 1024;
export const RETRY_404_MS = 3000;
/** A Retry-After longer than this is not waited for: the upload is dropped. */
export const MAX_RETRY_AFTER_MS = 60_000;
/** Uploads waiting behind the one in flight; more are dropped (the page is producing friction faster than it can be sent). */
export const MAX_WAITING = 3;
/**
 * The largest compressed upload sent as the page goes away. Chromium refuses keepalive requests
 * whose bodies in flight add up to more than 64 KiB; the core's last events (sendBeacon) share
 * that, so the clip leaves them room.
 */
export const KEEPALIVE_MAX = 60 * 1024;
/** JSON longer than this is not even compressed at exit: rrweb's JSON shrinks about tenfold, so it would not fit. */
export const KEEPALIVE_MAX_JSON = 1024 * 1024;

export interface UploadBody {
  key: string; sid: string; vid?: string; env?: string; id: string; kind: 'clip' | 'snapshot'; page: string;
  meta: { viewport_w: number; viewport_h: number; ua: string };
  signal_ids?: string[]; started_at: number; ended_at: number; width: number; height: number; events: unknown[];
}

/**
 * `stored`; `budget`: the site's budget is spent; `refused`: another polite no (a duplicate, the
 * element has its clips, the snapshot exists); `stop`: the key or origin is refused; `dropped`:
 * not delivered (network, too large, an error answer, the recorder stopped).
 */
export type Outcome = 'stored' | 'budget' | 'refused' | 'stop' | 'dropped';

export interface UploaderOptions {
  url: string;
  fetch: typeof fetch;
  /** Sends the core's queued events (before each attempt). */
  flush: () => Promise<void>;
  sleep?: (ms: number) => Promise<void>;
}

export async function gzip(text: string): Promise<Blob | null> {
  if (typeof CompressionStream !== 'function') return null;
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream('gzip'));
  return new Response(stream).blob();
}

/** The answer's meaning, from the status and the envelope of a 202. */
export function outcomeOf(status: number, body: { data?: { stored?: boolean; reason?: string } } | null): Outcome {
  if (status === 401 || status === 403) return 'stop';
  if (status < 200 || status >= 300) return 'dropped';
  if (body?.data?.stored === true) return 'stored';
  if (body?.data?.stored !== false) return 'dropped';
  return body.data.reason === 'budget' ? 'budget' : 'refused';
}

export class Uploader {
  #o: UploaderOptions;
  #chain: Promise<unknown> = Promise.resolve();
  #waiting = 0;
  #closed = false;

  constructor(options: UploaderOptions) {
    this.#o = options;
  }

  /** Nothing more is sent, not even what waits (consent withdrawn, the recorder stopped). */
  close() { this.#closed = true; }

  /**
   * The page is going away: sends `body` now with keepalive, gzip-compressed synchronously, if it
   * fits KEEPALIVE_MAX; true when it was handed to the browser. Nothing is retried or read back.
   */
  atExit(body: UploadBody): boolean {
    if (this.#closed) return false;
    try {
      const json = JSON.stringify(body);
      if (json.length > KEEPALIVE_MAX_JSON) return false;
      const compressed = gzipSync(strToU8(json));
      if (compressed.length > KEEPALIVE_MAX) return false;
      this.#o.fetch(this.#o.url, {
        method: 'POST', credentials: 'omit', keepalive: true, body: compressed,
        headers: { 'content-type': 'text/plain;charset=UTF-8', 'content-encoding': 'gzip' },
      }).catch(() => undefined);
      return true;
    } catch {
      return false;
    }
  }

  /** Queues an upload behind the one in flight; resolves with its outcome (never rejects). */
  send(body: UploadBody): Promise<Outcome> {
    if (this.#waiting >= MAX_WAITING) return Promise.resolve('dropped');
    this.#waiting++;
    const run = this.#chain.then(() => this.#send(body)).catch((): Outcome => 'dropped').finally(() => { this.#waiting--; });
    this.#chain = run;
    return run;
  }

  async #send(body: UploadBody): Promise<Outcome> {
    const json = JSON.stringify(body);
    if (new Blob([json]).size > MAX_JSON) return 'dropped';
    const compressed = await gzip(json).catch(() => null);
    if (compressed && compressed.size > MAX_COMPRESSED) return 'dropped';
    const sleep = this.#o.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
    let retried404 = false;
    let retried429 = false;
    for (;;) {
      await this.#o.flush().catch(() => undefined);
      if (this.#closed) return 'dropped';
      let status = 0;
      let answer: Response | null = null;
      try {
        answer = await this.#o.fetch(this.#o.url, {
          method: 'POST', credentials: 'omit', body: compressed ?? json,
          headers: compressed ? { 'content-type': 'text/plain;charset=UTF-8', 'content-encoding': 'gzip' } : { 'content-type': 'text/plain;charset=UTF-8' },
        });
        status = answer.status;
      } catch {
        return 'dropped';
      }
      if (status === 404 && !retried404) {
        retried404 = true;
        await sleep(RETRY_404_MS);
        continue;
      }
      if (status === 429 && !retried429) {
        retried429 = true;
        const wait = (Number(answer.headers.get('retry-after')) || 1) * 1000;
        if (wait > MAX_RETRY_AFTER_MS) return 'dropped';
        await sleep(wait);
        continue;
      }
      const parsed = await answer.json().catch(() => null) as { data?: { stored?: boolean; reason?: string } } | null;
      return outcomeOf(status, parsed);
    }
  }
}
