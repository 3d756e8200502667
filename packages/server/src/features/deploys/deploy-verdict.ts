// DOMAIN §9's post-deploy check, as a pure function: each page the deploy touched compares
// its score after the deploy with its score at the moment of recording. A page that rose
// 5 points or more is WARN, 15 or more FAIL; a critical issue first seen after the deploy
// fails it too, and a high one makes it at least WARN. A page not scored before counts from 0,
// as the spike alert counts it. Without post-deploy data the verdict is PENDING (unless a new
// critical issue already fails it, or a new high one already warns).
export const WARN_DELTA = 5;
export const FAIL_DELTA = 15;

export type PageVerdictWord = 'PASS' | 'WARN' | 'FAIL';
export type VerdictWord = PageVerdictWord | 'PENDING';

export interface PageSnapshot { page: string; score: number }
export interface CriticalIssue { title: string; page: string }

export interface PageVerdict {
  page: string;
  before: number | null;
  after: number;
  delta: number;
  verdict: PageVerdictWord;
  reason: string;
}

export interface DeployVerdict { verdict: VerdictWord; reasons: string[]; pages: PageVerdict[] }

const round1 = (n: number) => Math.round(n * 10) / 10;
const signed = (n: number) => (n > 0 ? `+${n}` : `${n}`);

function judgePage(page: string, before: number | null, after: number): PageVerdict {
  const delta = round1(after - (before ?? 0));
  const verdict: PageVerdictWord = delta >= FAIL_DELTA ? 'FAIL' : delta >= WARN_DELTA ? 'WARN' : 'PASS';
  const change = before === null ? `not scored before the deploy, now ${after}` : `${before} -> ${after} (${signed(delta)})`;
  const rule = verdict === 'FAIL' ? `rose ${FAIL_DELTA} points or more` : verdict === 'WARN' ? `rose ${WARN_DELTA} points or more` : `within ${WARN_DELTA} points`;
  return { page, before, after, delta, verdict, reason: `${page}: ${change}; ${rule}` };
}

export function deployVerdict(before: PageSnapshot[], after: PageSnapshot[] | null, newCritical: CriticalIssue[], newHigh: CriticalIssue[] = []): DeployVerdict {
  const criticalReasons = newCritical.map((i) => `new critical issue on ${i.page} since the deploy: ${i.title}`);
  const highReasons = newHigh.map((i) => `new high issue on ${i.page} since the deploy: ${i.title}`);
  if (after === null) {
    if (criticalReasons.length > 0) return { verdict: 'FAIL', reasons: [...criticalReasons, ...highReasons], pages: [] };
    if (highReasons.length > 0) return { verdict: 'WARN', reasons: highReasons, pages: [] };
    return { verdict: 'PENDING', reasons: ['no score after the deploy yet: it fills in from the first pipeline cycle 5 minutes after the deploy, once the site has visitors'], pages: [] };
  }
  const scoreBefore = new Map(before.map((p) => [p.page, p.score]));
  const pages = after.map((p) => judgePage(p.page, scoreBefore.get(p.page) ?? null, p.score))
    .sort((a, b) => b.delta - a.delta || a.page.localeCompare(b.page));
  const failing = pages.filter((p) => p.verdict === 'FAIL');
  const warning = pages.filter((p) => p.verdict === 'WARN');
  const reasons = [...failing.map((p) => p.reason), ...criticalReasons, ...warning.map((p) => p.reason), ...highReasons];
  if (failing.length > 0 || criticalReasons.length > 0) return { verdict: 'FAIL', reasons, pages };
  if (warning.length > 0 || highReasons.length > 0) return { verdict: 'WARN', reasons, pages };
  const largest = pages[0];
  const calm = largest
    ? `no page rose ${WARN_DELTA} points or more (largest change: ${largest.page} ${signed(largest.delta)})`
    : 'no page had visitors after the deploy';
  return { verdict: 'PASS', reasons: [calm], pages };
}
