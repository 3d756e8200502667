// @mallard/sdk: one client per page, behind plain functions. Calls before init() do nothing.
import { Client, VERSION, type FrictionListener, type FrictionSignal } from './client.ts';
import type { InitOptions, SignalSettings } from './config.ts';

export type { FrictionListener, FrictionSignal, InitOptions, SignalSettings };
export { VERSION };
export { DEFAULT_SIGNALS } from './config.ts';

let client: Client | null = null;

/** Starts recording. A second call returns the running client's readiness without restarting it. */
export function init(options: InitOptions): Promise<void> {
  if (typeof window === 'undefined' || !options || typeof options.key !== 'string' || !options.key) return Promise.resolve();
  client ??= new Client({ ...options });
  return client.ready;
}

export function track(name: string, props?: Record<string, unknown>): void { client?.track(name, props); }

export function identify(userRef: string): void { client?.identify(userRef); }

export function signal(type: string, meta?: { element?: Element | string; label?: string; confidence?: number }): void {
  client?.signal(type, meta);
}

export function onFriction(listener: FrictionListener): () => void {
  return client ? client.onFriction(listener) : () => undefined;
}

/** Give or withdraw consent when init() was told (or the site's config says) it is required. */
export function setConsent(granted: boolean): void { client?.setConsent(granted); }

export function flush(): Promise<void> { return client ? client.flush() : Promise.resolve(); }

/** Stops every detector, sends what is queued and forgets the client; init() may be called again. */
export function shutdown(): void {
  client?.shutdown();
  client = null;
}
