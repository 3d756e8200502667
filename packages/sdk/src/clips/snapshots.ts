// Page snapshots: one per page (named as the server stores it, pages.ts), device class and UTC day. The server lists what it already
// has (`snapshots_taken`, as of the config read); what this browser sent today is remembered in
// localStorage, so a page viewed again (or in another tab) does not send another.
import type { ClipsConfig } from './host.ts';

const KEY = 'mallard_snapshots';

export const utcDay = (now: number) => new Date(now).toISOString().slice(0, 10);
export const snapshotKey = (device: string | undefined, page: string) => `${device ?? ''}:${page}`;

interface Sent { day: string; keys: string[] }

function read(store: Storage | null, day: string): string[] {
  try {
    const sent = JSON.parse(store?.getItem(KEY) ?? 'null') as Sent | null;
    return sent && sent.day === day && Array.isArray(sent.keys) ? sent.keys : [];
  } catch {
    return [];
  }
}

/** Whether a snapshot of `page` is still wanted today. */
export function wantsSnapshot(config: ClipsConfig, page: string, store: Storage | null, now: number): boolean {
  const key = snapshotKey(config.device, page);
  if (Array.isArray(config.snapshots_taken) && config.snapshots_taken.includes(key)) return false;
  return !read(store, utcDay(now)).includes(key);
}

export function rememberSnapshot(config: ClipsConfig, page: string, store: Storage | null, now: number) {
  const day = utcDay(now);
  // Bounded: a site with thousands of pages must not grow the entry without end.
  const keys = [...read(store, day), snapshotKey(config.device, page)].slice(-500);
  try { store?.setItem(KEY, JSON.stringify({ day, keys })); } catch { /* storage full or denied: the server refuses a second one anyway */ }
}
