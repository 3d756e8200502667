// query_thrashing: >= `searches` different searches within `window_ms` in one session: a submit
// of a form holding a search field (type=search, role=search, or named q, query, search, s,
// term), or a URL change only in such a query parameter. Searches are compared by a hash kept
// in the tab's session storage (so they count across page loads); the text is never sent or
// stored. A refined search is a different search. Confidence 0.8.
import { isField, listen } from '../dom.ts';
import type { Context, Detector, Settings } from './types.ts';

const NAMES = ['q', 'query', 'search', 's', 'term'];
const FIELD = `input[type=search],${NAMES.map((n) => `input[name=${n}]`).join()}`;

/** FNV-1a: a short, one-way fingerprint of the normalised search. */
function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

export function queryThrashing(ctx: Context, s: Settings): Detector {
  const { win } = ctx;

  const searched = (text: string, el: Element | null) => {
    const query = text.trim().toLowerCase();
    if (!query || (el && ctx.ignored(el))) return;
    const t = ctx.now();
    const h = hash(query);
    let seen = (ctx.session.get<[number, number][]>('searches') ?? []).filter(([, at]) => t - at <= s.window_ms);
    if (!seen.some(([x]) => x === h)) seen.push([h, t]);
    if (seen.length >= s.searches) {
      seen = [];
      ctx.emit({ type: 'query_thrashing', el, confidence: 0.8, count: s.searches });
    }
    ctx.session.set('searches', seen);
  };

  const onSubmit = (e: Event) => {
    const form = e.target as HTMLFormElement;
    const field = (form.closest('[role=search],search') ? [...form.elements].find(isField) : form.querySelector(FIELD)) as HTMLInputElement | undefined;
    if (field) searched(field.value, field);
  };

  return {
    route(from) {
      const a = new URL(from);
      const b = new URL(win.location.href);
      if (a.pathname !== b.pathname) return;
      const keys = new Set([...a.searchParams.keys(), ...b.searchParams.keys()]);
      const changed = [...keys].filter((k) => a.searchParams.get(k) !== b.searchParams.get(k));
      if (changed.length && changed.every((k) => NAMES.includes(k))) searched(b.searchParams.get(changed[0]) ?? '', null);
    },
    stop: listen(ctx.doc, ['submit'], onSubmit),
  };
}
