// Numbers and times for people: the browser's locale and time zone, UTC on hover.
const cache = new Map<string, Intl.NumberFormat>();
function numberFormat(min: number, max: number, style: 'decimal' | 'percent' = 'decimal') {
  const key = `${min}:${max}:${style}`;
  let f = cache.get(key);
  if (!f) cache.set(key, f = new Intl.NumberFormat(undefined, { minimumFractionDigits: min, maximumFractionDigits: max, style }));
  return f;
}

/** A count or measure: 12,345 or 3.4. */
export const num = (n: number | null | undefined, digits = 0) => (n == null || !Number.isFinite(n) ? '–' : numberFormat(0, digits).format(n));

/** A confusion score (0 to 100), always with one decimal so columns line up: 8.6, 42.0. */
export const score = (n: number | null | undefined) => (n == null || !Number.isFinite(n) ? '–' : numberFormat(1, 1).format(n));

/** A fraction 0..1 as a percentage: 0.724 -> 72%. */
export const percent = (fraction: number | null | undefined) => (fraction == null || !Number.isFinite(fraction) ? '–' : numberFormat(0, 0, 'percent').format(fraction));

/** A signed change in score: +4.9, -1.2, 0.0. */
export const delta = (n: number | null | undefined) => (n == null || !Number.isFinite(n) ? '–' : `${n > 0 ? '+' : n < 0 ? '−' : ''}${score(Math.abs(n))}`);

const moneyCache = new Map<string, Intl.NumberFormat | null>();
function moneyFormat(currency: string, locale?: string) {
  const key = `${locale ?? ''}:${currency}`;
  if (!moneyCache.has(key)) {
    let f: Intl.NumberFormat | null = null;
    try {
      f = new Intl.NumberFormat(locale, { style: 'currency', currency, minimumFractionDigits: 0, maximumFractionDigits: 0 });
    } catch { /* an unknown currency code: written out instead */ }
    moneyCache.set(key, f);
  }
  return moneyCache.get(key)!;
}

/**
 * The one money formatter: the API gives money in cents (fields ending in `_cents`), people read
 * whole currency units. 716_700 -> $7,167; an unknown currency code is written out (7,167 XYZ).
 */
export function money(cents: number | null | undefined, currency = 'USD', locale?: string): string {
  if (cents == null || !Number.isFinite(cents)) return '–';
  const units = Math.round(cents / 100);
  const f = moneyFormat(currency, locale);
  return f ? f.format(units) : `${new Intl.NumberFormat(locale).format(units)} ${currency}`;
}

/** Monthly money at risk: $7,167/mo, or "not estimated" when the API gives null. */
export const moneyPerMonth = (cents: number | null | undefined, currency = 'USD', locale?: string) =>
  (cents == null ? 'not estimated' : `${money(cents, currency, locale)}/mo`);

/** A priority for people: "priority 49.8 of 100". */
/** A size in bytes as people read it: "812 B", "4.2 KB", "50 MB" (1 KB = 1,024 bytes, as the server's budgets count). */
export function bytes(n: number | null | undefined): string {
  if (n == null || !Number.isFinite(n)) return '–';
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) { value /= 1024; unit++; }
  return `${numberFormat(0, unit === 0 || value >= 10 ? 0 : 1).format(value)} ${units[unit]}`;
}

export const priorityLabel = (p: number | null | undefined) => `priority ${score(p)} of 100`;

/** How long a window is, in words: 15 minutes, 1 hour, 2 h 15 min, 24 hours, 7 days. */
export function spanLength(ms: number): string {
  if (!Number.isFinite(ms) || ms <= 0) return '–';
  const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;
  const minutes = Math.round(ms / 60_000);
  if (minutes < 60) return plural(Math.max(1, minutes), 'minute');
  const hours = Math.floor(minutes / 60);
  const rest = minutes - hours * 60;
  // Whole days read as days from 2 days on; 24 to 47 hours stay hours ("the last 24 hours").
  if (rest === 0 && hours >= 48 && hours % 24 === 0) return plural(hours / 24, 'day');
  if (hours >= 48) return plural(Math.round(minutes / 60), 'hour');
  return rest === 0 ? plural(hours, 'hour') : `${hours} h ${rest} min`;
}

const localFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const shortFormat = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });

/** A time in the browser's zone. */
export const localTime = (iso: string, short = false) => (short ? shortFormat : localFormat).format(new Date(iso));

/** The same instant in UTC, for the hover title: 2026-11-23 20:45:00 UTC. */
export const utcTime = (iso: string) => `${new Date(iso).toISOString().slice(0, 19).replace('T', ' ')} UTC`;

/** A span: 950 ms, 7.6 s, 1 min 35 s, 2 h 5 min. */
export function duration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '–';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${num(s, s < 10 ? 1 : 0)} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${Math.round(s - m * 60)} s`;
  const h = Math.floor(m / 60);
  return `${h} h ${m - h * 60} min`;
}

/** How long ago, coarse: just now, 5 min ago, 3 h ago, 2 days ago. */
export function ago(iso: string, now = Date.now()): string {
  const ms = now - Date.parse(iso);
  if (ms < 60_000) return 'just now';
  if (ms < 3_600_000) return `${Math.floor(ms / 60_000)} min ago`;
  if (ms < 86_400_000) return `${Math.floor(ms / 3_600_000)} h ago`;
  const days = Math.floor(ms / 86_400_000);
  return `${days} day${days === 1 ? '' : 's'} ago`;
}

/** snake_case words for people: rage_click -> rage click. */
export const words = (s: string) => s.replaceAll('_', ' ');

/** The script tag that installs the SDK from this server, with a publishable key. */
export const installSnippet = (origin: string, key = 'svc_pub_...') => `<script async src="${origin}/sdk.js" data-key="${key}"></script>`;
