// load_abandonment: the page is left (pagehide or SPA route change) before its `load` event,
// `min_ms` or more after navigation start; a page that never reached DOMContentLoaded counts
// too, as long as the SDK runs. Once per load. Confidence 1.
import { listen } from '../dom.ts';
import type { Context, Detector, Settings } from './types.ts';

export function loadAbandonment(ctx: Context, s: Settings): Detector {
  let loaded = ctx.doc.readyState === 'complete';
  const stop = listen(ctx.win, ['load'], () => { loaded = true; }, false);
  return {
    leave() {
      const waited = ctx.now() - ctx.win.performance.timeOrigin;
      if (loaded || waited < s.min_ms) return;
      loaded = true;
      ctx.emit({ type: 'load_abandonment', confidence: 1, duration_ms: Math.round(waited) });
    },
    stop,
  };
}
