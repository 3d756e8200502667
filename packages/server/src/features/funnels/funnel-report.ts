// GET /v1/query/funnel: an ad-hoc funnel over the window (default the last 7 days), on the
// device class if given. Loads (funnel-sessions.ts), walks (walk.ts) and shapes the answer.
// Over the most recent FUNNEL_SESSION_CAP entrants of step 1 (exact below it; `sampled` says
// when the cap cut), so its cost does not grow with the site's traffic.
import { iso } from '../../clock.ts';
import { cachedRead } from '../../domain/cached-read.ts';
import type { ServiceContext } from '../../domain/context.ts';
import { hasWildcard, matchesPagePattern } from '../../domain/page-pattern.ts';
import { readWindow, type ReadFilterInput } from '../../domain/read-window.ts';
import { isEdgeDecorator } from '../../domain/signals.ts';
import { loadIngestSettings } from '../../domain/site-settings.ts';
import { normalizePage } from '../../domain/normalize.ts';
import { invalidInput } from '../../domain/errors.ts';
import { OPEN_ISSUE_STATUSES } from '../../domain/statuses.ts';
import { resolveSite } from '../../domain/tenancy.ts';
import { DAY_MS, MINUTE_MS } from '../../domain/time.ts';
import { CHUNK, entrantSessionIds, loadFunnelSessions } from './funnel-sessions.ts';
import type { Funnel } from './schemas.ts';
import { parseSteps, splitSteps } from './steps.ts';
import { addSession, median, newTally, rate, topSignals, type FunnelStep } from './walk.ts';

/** The default look-back when `from` is not given, as /query/flows. */
export const FUNNEL_DEFAULT_DAYS = 7;
const TOP_SIGNALS = 5;
const TOP_ISSUES = 5;

export interface FunnelInput extends ReadFilterInput { site_id?: string; steps: string | readonly string[]; window_minutes: number }

export async function funnelReport({ ctx, input }: { ctx: ServiceContext; input: FunnelInput }): Promise<Funnel> {
  const site = await resolveSite(ctx, input.site_id);
  const parsed = parseSteps(typeof input.steps === 'string' ? splitSteps(input.steps) : input.steps);
  const window = readWindow(input, ctx.now, FUNNEL_DEFAULT_DAYS * DAY_MS);
  const filters = { from: window.from!, to: window.to ?? ctx.now + 1, device: input.device };
  const windowMs = input.window_minutes * MINUTE_MS;
  // Keyed by what was asked, not the computed window (whose end moves with the clock), as flows is.
  return cachedRead(ctx, ['funnel', site.id, parsed, windowMs, input.from ?? null, input.to ?? null, input.device ?? null], async () => {
    // An exact page is matched as ingest stored it (ids grouped, the site's page groups applied):
    // the settings are read once, inside the cached computation, not once per step and request.
    const { pageGroups } = await loadIngestSettings(ctx.db, site.id, 'production');
    const steps: FunnelStep[] = parsed.map((s) => {
      if (s.kind !== 'page' || hasWildcard(s.step)) return s;
      const page = normalizePage(s.step, pageGroups);
      if (!page) throw invalidInput('steps', `${s.step.slice(0, 40)} is not a usable page path`);
      return { ...s, step: page };
    });
    const { sids, sampled } = await entrantSessionIds(ctx.db, site.id, steps[0], filters);
    const tally = newTally(steps);
    for (let i = 0; i < sids.length; i += CHUNK) {
      for (const session of await loadFunnelSessions(ctx.db, site.id, sids.slice(i, i + CHUNK), steps, filters)) {
        addSession(tally, steps, session, windowMs, isEdgeDecorator);
      }
    }
    const open = await ctx.db.selectFrom('ux_issues').select(['id', 'title', 'severity', 'page', 'priority'])
      .where('site_id', '=', site.id).where('status', 'in', OPEN_ISSUE_STATUSES)
      .orderBy('priority', 'desc').orderBy('last_seen_at', 'desc').orderBy('id').execute();
    return {
      site_id: site.id,
      window_minutes: input.window_minutes,
      window_from: iso(filters.from),
      window_to: iso(window.to ?? ctx.now),
      steps: steps.map((step, k) => {
        const t = tally[k];
        const onStep = step.kind === 'page' ? (page: string) => matchesPagePattern(step.step, page) : (page: string) => t.pages.has(page);
        return {
          step: step.step, kind: step.kind, entered: t.entered, converted: t.converted, conversion_rate: rate(t.converted, t.entered),
          median_ms_to_next: median(t.msToNext),
          friction: {
            signals: topSignals(t.signals, TOP_SIGNALS),
            issues: open.filter((i) => onStep(i.page)).slice(0, TOP_ISSUES).map(({ id, title, severity, page }) => ({ id, title, severity, page })),
            dropped_after_friction: t.droppedAfterFriction,
          },
        };
      }),
      entered: tally[0].entered,
      completed: tally[steps.length - 1].entered,
      sessions_analyzed: sids.length,
      sampled,
    };
  });
}
