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

export const money = (amount: number, currency = 'USD') =>
  new Intl.NumberFormat(undefined, { style: 'currency', currency, maximumFractionDigits: 0 }).format(amount);

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
