// Delivery: events queued in memory (bounded), sent in batches by count and time as text/plain
// (no CORS preflight), with fetch keepalive, or sendBeacon when the page goes away. Failures
// that may pass (network, 429, 5xx) are retried with exponential backoff; the server
// deduplicates on event ids, so a retry never stores anything twice. Nothing here blocks.

export interface WireEvent { type: string; ts: number; id: string; page: string; [field: string]: unknown }

export interface TransportOptions {
  url: string;
  key: string;
  env?: string;
  appVersion?: string;
  fetch: typeof fetch;
  win: Window;
  batchSize?: number;
  intervalMs?: number;
  maxQueue?: number;
}

interface Queued { sid: string; vid?: string; event: WireEvent }

export const MAX_QUEUE = 1000;
export const BATCH_SIZE = 50;
export const FLUSH_INTERVAL_MS = 5000;
export const MAX_BACKOFF_MS = 5 * 60 * 1000;

export class Transport {
  #queue: Queued[] = [];
  #timer: ReturnType<typeof setTimeout> | null = null;
  #sending: Promise<void> | null = null;
  #failures = 0;
  #retryAt = 0;
  /** Sending waits until the client allows it (remote config read, consent given). */
  open = false;
  /** A refused key stops delivery for good. */
  #refused = false;

  #o: TransportOptions;

  constructor(options: TransportOptions) {
    this.#o = options;
  }

  get size() { return this.#queue.length; }

  push(sid: string, vid: string | undefined, event: WireEvent) {
    if (this.#refused) return;
    this.#queue.push({ sid, vid, event });
    // Bounded memory: when the server is away for long, the oldest events go first.
    if (this.#queue.length > (this.#o.maxQueue ?? MAX_QUEUE)) this.#queue.splice(0, this.#queue.length - (this.#o.maxQueue ?? MAX_QUEUE));
    if (this.#queue.length >= (this.#o.batchSize ?? BATCH_SIZE)) void this.flush();
    else this.#schedule(this.#o.intervalMs ?? FLUSH_INTERVAL_MS);
  }

  clear() { this.#queue = []; }

  #schedule(delay: number) {
    if (this.#timer || !this.#queue.length) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      void this.flush(true);
    }, Math.max(delay, this.#retryAt - Date.now()));
  }

  /** The next batch: events of one session, in order. */
  #take(): { body: string; items: Queued[] } | null {
    const first = this.#queue[0];
    if (!first) return null;
    const items: Queued[] = [];
    for (const item of this.#queue) {
      if (item.sid !== first.sid || items.length >= (this.#o.batchSize ?? BATCH_SIZE)) break;
      items.push(item);
    }
    const { win } = this.#o;
    const batch = {
      key: this.#o.key, sid: first.sid, vid: first.vid, url: win.location.origin + win.location.pathname, ts: Date.now(), env: this.#o.env,
      meta: { viewport_w: win.innerWidth, viewport_h: win.innerHeight, app_version: this.#o.appVersion },
      events: items.map((i) => i.event),
    };
    return { body: JSON.stringify(batch), items };
  }

  #remove(items: Queued[]) {
    const sent = new Set(items);
    this.#queue = this.#queue.filter((i) => !sent.has(i));
  }

  /** Sends everything queued now; resolves when done or when a failure was scheduled for retry. */
  flush(fromTimer = false): Promise<void> {
    if (!this.open || this.#refused) return Promise.resolve();
    if (fromTimer && Date.now() < this.#retryAt) {
      this.#schedule(0);
      return Promise.resolve();
    }
    this.#sending ??= this.#drain().finally(() => {
      this.#sending = null;
      this.#schedule(this.#o.intervalMs ?? FLUSH_INTERVAL_MS);
    });
    return this.#sending;
  }

  async #drain() {
    for (let batch = this.#take(); batch; batch = this.#take()) {
      let status = 0;
      let retryAfter = 0;
      try {
        const res = await this.#o.fetch.call(this.#o.win, this.#o.url, {
          method: 'POST', body: batch.body, keepalive: batch.body.length < 60_000, credentials: 'omit',
          headers: { 'content-type': 'text/plain;charset=UTF-8' },
        });
        status = res.status;
        retryAfter = Number(res.headers.get('retry-after')) * 1000 || 0;
      } catch {
        status = 0;
      }
      if (status === 0 || status === 429 || status >= 500) {
        this.#failures++;
        const backoff = Math.min(MAX_BACKOFF_MS, 1000 * 2 ** (this.#failures - 1)) * (0.75 + Math.random() / 2);
        this.#retryAt = Date.now() + Math.max(backoff, retryAfter);
        return;
      }
      this.#failures = 0;
      this.#retryAt = 0;
      if (status === 401 || status === 403) {
        this.#refused = true;
        this.#queue = [];
        return;
      }
      // 2xx is done; any other 4xx would fail the same way again, so the batch is dropped.
      this.#remove(batch.items);
    }
  }

  /** The page is going away: hand everything to the browser, which sends it after unload. */
  exit() {
    if (!this.open || this.#refused) return;
    for (let batch = this.#take(); batch; batch = this.#take()) {
      const nav = this.#o.win.navigator;
      const beaconed = nav.sendBeacon?.(this.#o.url, batch.body);
      if (!beaconed) {
        this.#o.fetch.call(this.#o.win, this.#o.url, {
          method: 'POST', body: batch.body, keepalive: true, credentials: 'omit', headers: { 'content-type': 'text/plain;charset=UTF-8' },
        }).catch(() => undefined);
      }
      this.#remove(batch.items);
    }
  }

  stop() {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }
}
