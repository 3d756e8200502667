// reload_retry: the page is reloaded (navigation type `reload`) within `within_ms` of its
// previous load's navigation start, in the same session; the first reload is the signal, more
// within `quiet_ms` raise nothing new. Confidence 1.0 when the view reloaded had a friction
// signal, else 0.7. The last load is kept in session storage: { t: its navigation start, f: 1
// once the current view had friction }.
import type { Context, Detector, Settings } from './types.ts';

interface Load { t: number; f?: number }

export function reloadRetry(ctx: Context, s: Settings): Detector {
  const perf = ctx.win.performance;
  const start = Math.round(perf.timeOrigin);
  let first = true;
  return {
    pageview() {
      const last = ctx.session.get<Load>('load');
      if (!first) return ctx.session.set('load', { t: last?.t ?? start }); // a new view in the same load
      first = false;
      ctx.session.set('load', { t: start });
      const nav = perf.getEntriesByType?.('navigation')[0] as PerformanceNavigationTiming | undefined;
      const quiet = ctx.session.get<number>('reloaded') ?? -1e15;
      if (nav?.type !== 'reload' || !last || start - last.t > s.within_ms || start - quiet < s.quiet_ms) return;
      ctx.session.set('reloaded', start);
      ctx.emit({ type: 'reload_retry', confidence: last.f ? 1 : 0.7, duration_ms: start - last.t });
    },
    friction() {
      const last = ctx.session.get<Load>('load');
      if (last && !last.f) ctx.session.set('load', { ...last, f: 1 });
    },
    stop() {},
  };
}
