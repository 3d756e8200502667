// Pure: a deterministic plain-language account of a session from its events, in order
// (DOMAIN.md section 10). It says what happened and never guesses why.
export interface NarrativeSession {
  device_type: string | null;
  browser: string | null;
  os: string | null;
  referrer_host: string | null;
  converted: boolean;
}

export interface NarrativeEvent {
  type: string;
  page: string;
  occurred_at: number;
  name: string | null;
  signal_type: string | null;
  element: string | null;
  label: string | null;
  props: Record<string, unknown> | null;
}

export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (ms < 10_000) return `${(Math.max(0, ms) / 1000).toFixed(1).replace(/\.0$/, '')} s`;
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return seconds % 60 ? `${minutes} min ${seconds % 60} s` : `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return minutes % 60 ? `${hours} h ${minutes % 60} min` : `${hours} h`;
}

function target(event: NarrativeEvent): string {
  const label = event.label ? `'${event.label}'` : null;
  const selector = event.element ? `(${event.element})` : null;
  if (label && selector) return `${label} ${selector}`;
  return label ?? (event.element ? `the element ${event.element}` : 'an element');
}

const countOf = (event: NarrativeEvent) => (typeof event.props?.count === 'number' ? event.props.count : null);
const durationOf = (event: NarrativeEvent) => (typeof event.props?.duration_ms === 'number' ? event.props.duration_ms : null);

function burst(event: NarrativeEvent): string {
  const count = countOf(event);
  const duration = durationOf(event);
  if (count && duration !== null) return ` ${count} times in ${formatDuration(duration)}`;
  if (count) return ` ${count} times`;
  return ' repeatedly';
}

/** One friction signal in plain words. */
export function describeSignal(event: NarrativeEvent): string {
  const t = target(event);
  const duration = durationOf(event);
  switch (event.signal_type) {
    case 'rage_click': return `clicked ${t}${burst(event)} with no response`;
    case 'dead_click': return `clicked ${t} and nothing happened`;
    case 'disabled_element_attempt': return `tried to use ${t}${event.props?.count ? burst(event) : ''}, but it was disabled`;
    case 'form_restart': return `cleared a form and started filling it again${event.element ? ` (${event.element})` : ''}`;
    case 'form_friction': return `struggled with the field ${t}`;
    case 'form_validation_loop': return `hit the same validation error on ${t} again and again`;
    case 'error_encounter': return `ran into an error${event.label ? `: ${event.label}` : ''}`;
    case 'form_abandonment': return `left a form unfinished${event.element ? ` (${event.element})` : ''}`;
    case 'u_turn_navigation': return 'went straight back to the previous page';
    case 'dead_end_submit': return `submitted ${t} and got no response`;
    case 'layout_shift_rage': return `clicked ${t}${burst(event)} right after the page moved it`;
    case 'thrash_cursor': return `moved the pointer back and forth${event.element || event.label ? ` over ${t}` : ''} without settling`;
    case 'jerky_scrolling': return 'scrolled up and down the page without settling';
    case 'reload_retry': return `reloaded the page ${duration !== null ? `${formatDuration(duration)} after` : 'soon after'} it loaded`;
    case 'load_abandonment': return `left before the page finished loading${duration !== null ? `, after waiting ${formatDuration(duration)}` : ''}`;
    case 'query_thrashing': return `tried ${countOf(event) ?? 'several'} different searches in quick succession`;
    default: return `showed ${String(event.signal_type).replace(/_/g, ' ')} on ${t}`;
  }
}

/** Past forms that do not end in -ed, common in event names. */
const IRREGULAR_PAST = new Set(['done', 'sent', 'paid', 'made', 'begun', 'bought', 'won', 'lost', 'seen', 'given', 'set', 'put', 'read', 'left', 'found', 'chosen', 'taken', 'shown']);

/**
 * A tracked event in plain words. Names often end with their verb (`checkout_completed`,
 * `signUpStarted`): that becomes "completed checkout", "started sign up", never "completed
 * checkout completed". A name without one is quoted: tracked "add to cart".
 */
export function describeTracked(name: string): string {
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').split(/[\s_\-.:/]+/).filter(Boolean).map((w) => w.toLowerCase());
  if (words.length === 0) return 'tracked an event';
  const last = words[words.length - 1];
  if (words.length > 1 && (/[a-z]{2}ed$/.test(last) || IRREGULAR_PAST.has(last))) return `${last} ${words.slice(0, -1).join(' ')}`;
  if (words.length === 1 && (/[a-z]{2}ed$/.test(last) || IRREGULAR_PAST.has(last))) return last;
  return `tracked "${words.join(' ')}"`;
}

function arrival(session: NarrativeSession, entry: string): string {
  const device = session.device_type ? `a ${session.device_type}` : 'an unknown device';
  const agent = [session.browser, session.os].filter(Boolean).join(' on ');
  const from = session.referrer_host ? ` from ${session.referrer_host}` : '';
  return `Arrived on ${entry}${from}, using ${device}${agent ? ` (${agent})` : ''}.`;
}

export function buildNarrative(session: NarrativeSession, events: readonly NarrativeEvent[]): string {
  if (events.length === 0) return 'No events were recorded for this session.';
  const start = events[0].occurred_at;
  const end = events[events.length - 1].occurred_at;
  const pageviews = events.filter((e) => e.type === 'pageview');
  const sentences: string[] = [arrival(session, pageviews[0]?.page ?? events[0].page)];

  let currentPage: string | null = null;
  let visitStart = start;
  // What happened during the current page visit: friction and tracked events, in order.
  let moments: string[] = [];
  const closeVisit = (until: number) => {
    if (currentPage === null) return;
    const what = moments.length ? `the user ${moments.join('; then ')}` : 'nothing stood out';
    sentences.push(`On ${currentPage} (${formatDuration(until - visitStart)}), ${what}.`);
    moments = [];
  };

  for (const event of events) {
    if (event.type === 'pageview' || currentPage === null) {
      closeVisit(event.occurred_at);
      currentPage = event.page;
      visitStart = event.occurred_at;
    }
    if (event.type === 'signal') moments.push(describeSignal(event));
    else if (event.type === 'track' && event.name) moments.push(describeTracked(event.name));
  }
  closeVisit(end);

  const outcome = session.converted ? 'after converting' : 'without converting';
  sentences.push(`Left from ${events[events.length - 1].page} after ${formatDuration(end - start)}, ${outcome}.`);
  return sentences.join(' ');
}

export interface SummarySession {
  pages: readonly string[];
  page_count: number;
  entry_page: string | null;
  exit_page: string | null;
  duration_ms: number;
  signal_count: number;
  converted: boolean;
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/**
 * The session in one line, for lists (the sessions search): its path and length, its heaviest
 * friction moment in the narrative's words (`worst`: the signal with the most weight x cf,
 * chosen by the caller), and how it ended. Like the narrative, it never guesses why.
 */
export function summarizeSession(session: SummarySession, worst: NarrativeEvent | null): string {
  const entry = session.entry_page ?? session.pages[0] ?? 'an unknown page';
  const exit = session.exit_page ?? entry;
  const path = session.page_count <= 1 && entry === exit ? `1 page (${entry})` : `${plural(session.page_count, 'page')} from ${entry} to ${exit}`;
  const friction = worst
    ? `on ${worst.page} the user ${describeSignal(worst)}${session.signal_count > 1 ? ` (${plural(session.signal_count - 1, 'more signal')})` : ''}`
    : 'no friction signals';
  return `${path} in ${formatDuration(session.duration_ms)}; ${friction}; ${session.converted ? 'converted' : 'did not convert'}.`;
}
