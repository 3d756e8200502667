// A page path as the server stores it (packages/server/src/domain/normalize.ts, normalizePage):
// no query or fragment, no empty segments, id-like segments as `:id`, then the site's page
// groups (the public config's `page_groups`, first match wins). The server's `snapshots_taken`
// names pages this way, so the recorder compares the path it is on in the same form.
// test/clips-pages.test.ts checks this against the server's own function.

export interface PageGroupRule { match: string; page: string }

const NUMBER = /^\d+$/;
const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const LONG_HEX = /^[0-9a-f]{16,}$/i;
const BASE62_ID = /^(?=.*\d)(?=.*[A-Za-z])[A-Za-z0-9_-]{16,}$/;

const isId = (s: string) => NUMBER.test(s) || UUID.test(s) || LONG_HEX.test(s) || BASE62_ID.test(s);

/** The site's groups as regular expressions; a pattern the browser cannot read is skipped (as the server does). */
export function pageGroups(rules: unknown): { match: RegExp; page: string }[] {
  const groups: { match: RegExp; page: string }[] = [];
  if (!Array.isArray(rules)) return groups;
  for (const rule of rules as PageGroupRule[]) {
    try {
      if (typeof rule?.match === 'string' && typeof rule.page === 'string') groups.push({ match: new RegExp(rule.match), page: rule.page });
    } catch { /* skipped */ }
  }
  return groups;
}

/** `path` (a location's pathname) as the server stores it. */
export function normalizePath(path: string, groups: readonly { match: RegExp; page: string }[]): string {
  let decoded = path.trim().split(/[?#]/, 1)[0];
  try { decoded = decodeURI(decoded); } catch { /* keep the encoded form */ }
  let page = `/${decoded.split('/').filter(Boolean).map((s) => (isId(s) ? ':id' : s)).join('/')}`;
  for (const group of groups) {
    if (group.match.test(page)) { page = group.page; break; }
  }
  return page;
}
