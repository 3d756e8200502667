// Pure normalisation of what browsers send: page paths grouped so ids do not split a page,
// labels and selectors stripped of personal data, coordinates turned into fractions.

export const MAX_PAGE_LENGTH = 512;

export interface PageGroup { match: RegExp; page: string }

const NUMBER = /^\d+$/;
const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const LONG_HEX = /^[0-9a-f]{16,}$/i;
// A base62 id: long, and mixing digits with letters (so /documentation stays a word).
const BASE62_ID = /^(?=.*\d)(?=.*[A-Za-z])[A-Za-z0-9_-]{16,}$/;

function isIdSegment(segment: string): boolean {
  return NUMBER.test(segment) || UUID.test(segment) || LONG_HEX.test(segment) || BASE62_ID.test(segment);
}

/**
 * A page path as stored: no query or fragment, a leading slash, no trailing slash, no empty
 * segments, id-like segments replaced by `:id`, then the site's own groups. Null when the
 * value is not a usable path.
 */
export function normalizePage(raw: string, groups: readonly PageGroup[] = []): string | null {
  let path = raw.trim();
  if (!path) return null;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(path)) {
    try { path = new URL(path).pathname; } catch { return null; }
  }
  path = path.split(/[?#]/, 1)[0];
  if (!path.startsWith('/')) return null;
  let decoded = path;
  try { decoded = decodeURI(path); } catch { /* keep the encoded form */ }
  const segments = decoded.split('/').filter(Boolean).map((s) => (isIdSegment(s) ? ':id' : s));
  let page = `/${segments.join('/')}`;
  for (const group of groups) {
    if (group.match.test(page)) { page = group.page; break; }
  }
  if (page.length > MAX_PAGE_LENGTH || /[\u0000-\u001f\u007f]/.test(page)) return null;
  return page;
}

/** The page of a full URL (what ingest uses when an event has no `page`). */
export function pageFromUrl(url: string, groups: readonly PageGroup[] = []): string | null {
  try {
    return normalizePage(new URL(url).pathname, groups);
  } catch {
    return null;
  }
}

export function hostOf(url: string | undefined | null): string | null {
  if (!url) return null;
  try { return new URL(url).host || null; } catch { return null; }
}

const REDACTIONS: RegExp[] = [
  /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g, // emails
  /\b(?:https?:\/\/|www\.)[^\s"'<>]+/gi, // URLs
  /\b[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]{4}){2,7}(?:[ ]?[A-Z0-9]{1,4})?\b/g, // IBAN-like
  /\b(?:\d[ -]?){12,18}\d\b/g, // card-like digit runs (13 to 19 digits)
  /(?:\+|\b)\d{1,3}?[ .-]?\(?\d{2,4}\)?[ .-]?\d{3,4}[ .-]?\d{3,4}\b/g, // phone numbers
];

export const REDACTED = '[redacted]';
export const LABEL_MAX = 80;
export const SELECTOR_MAX = 512;

export function redact(text: string): string {
  let out = text;
  for (const pattern of REDACTIONS) out = out.replace(pattern, REDACTED);
  return out;
}

/** A label as stored: single-line, redacted, at most 80 characters. */
export function cleanLabel(label: unknown): string | null {
  if (typeof label !== 'string') return null;
  const text = redact(label.replace(/\s+/g, ' ').trim());
  if (!text) return null;
  return text.length > LABEL_MAX ? `${text.slice(0, LABEL_MAX - 1)}…` : text;
}

/** A selector as stored: redacted (attribute values can hold personal data), bounded. */
export function cleanSelector(selector: unknown): string {
  if (typeof selector !== 'string') return '';
  return redact(selector.trim()).slice(0, SELECTOR_MAX);
}

const clamp01 = (v: number) => Math.min(1, Math.max(0, v));
const round4 = (v: number) => Math.round(v * 10_000) / 10_000;
const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

export interface ClickCoordinates { hx?: unknown; hy?: unknown; click_dx?: unknown; click_dy?: unknown; el_w?: unknown; el_h?: unknown; vx?: unknown; vy?: unknown }

/**
 * In-element position (rx, ry) and viewport position (vx, vy) as fractions in [0, 1].
 * Newer SDKs send hx/hy in 0..1000; older ones the offset from the element's centre with its
 * size. A zero or missing size means no in-element point.
 */
export function heatmapPoint(c: ClickCoordinates): { rx: number | null; ry: number | null; vx: number | null; vy: number | null } {
  let rx: number | null = null;
  let ry: number | null = null;
  if (finite(c.hx) && finite(c.hy)) {
    rx = round4(clamp01(c.hx / 1000));
    ry = round4(clamp01(c.hy / 1000));
  } else if (finite(c.click_dx) && finite(c.click_dy) && finite(c.el_w) && finite(c.el_h) && c.el_w > 0 && c.el_h > 0) {
    rx = round4(clamp01(0.5 + c.click_dx / c.el_w));
    ry = round4(clamp01(0.5 + c.click_dy / c.el_h));
  }
  const both = finite(c.vx) && finite(c.vy);
  return {
    rx, ry,
    vx: both ? round4(clamp01((c.vx as number) / 1000)) : null,
    vy: both ? round4(clamp01((c.vy as number) / 1000)) : null,
  };
}

// Crawlers, link previewers and headless browsers; plain HTTP clients are not bots.
const BOT_UA = /bot\b|bot\/|crawler|crawling|spider|slurp|headless|phantomjs|puppeteer|selenium|webdriver|lighthouse|pingdom|scrapy|facebookexternalhit|embedly|bingpreview/i;

export function isBotUserAgent(ua: string | undefined | null): boolean {
  return !!ua && BOT_UA.test(ua);
}

export const DEVELOPMENT_ENVIRONMENTS = new Set(['development', 'dev', 'local', 'test']);
