// u_turn_navigation: a navigation to a page, then Back (or a link back) to the previous page
// within `within_ms`. The signal belongs to the page the user turned away from. The last two
// pages are kept in session storage so full page loads count as well as SPA routes.
import type { Context, Detector, Settings } from './types.ts';

interface Visit { page: string; t: number }

export function uTurnNavigation(ctx: Context, s: Settings): Detector {
  return {
    pageview(page, t) {
      const visits = ctx.session.get<Visit[]>('visits') ?? [];
      const current = visits[visits.length - 1];
      const previous = visits[visits.length - 2];
      if (!current) return ctx.session.set('visits', [{ page, t }]);
      if (current.page === page) return; // a reload is not a navigation
      if (previous?.page === page && t - current.t <= s.within_ms) {
        ctx.emit({ type: 'u_turn_navigation', page: current.page, confidence: 0.8, duration_ms: t - current.t });
      }
      ctx.session.set('visits', [current, { page, t }]);
    },
    stop() {},
  };
}
