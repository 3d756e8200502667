// The labelled corpus: scripted sessions, each labelled with the signals a person watching it
// would say happened (type: how many). Planted sessions are grouped by the detector they are
// about and include the edges of its thresholds (just below: not that signal; at it: the
// signal); benign sessions are everyday behaviour that must produce no signal at all.
// Default thresholds throughout, except where a session says it tests the remote config.
import { pause, type User } from './user.ts';
import type { Received } from './server.ts';

export interface Session {
  name: string;
  /** The detector the session is about, or 'benign'. */
  group: string;
  expect: Record<string, number>;
  /** Details that some received signal must have (element, confidence). */
  match?: Partial<Received>[];
  /** The session's remote config (`signals`), served by the corpus's stand-in server. */
  config?: Record<string, unknown>;
  /** Runs for long (waits on purpose): started first. */
  long?: boolean;
  run(user: User): Promise<void>;
}

const article = (n: number) => `#p${n}`;

const planted: Session[] = [
  // rage_click
  { name: 'three quick clicks on a button that does nothing', group: 'rage_click', expect: { rage_click: 1 }, match: [{ type: 'rage_click', element: '#dead', label: 'Buy now' }],
    run: async (u) => { await u.open('/buttons'); await u.clicks('#dead', 3, 250); } },
  { name: 'two quick clicks on a picture (below the threshold)', group: 'rage_click', expect: {},
    run: async (u) => { await u.open('/buttons'); await u.clicks('#picture', 2, 250); } },
  { name: 'four clicks on a picture', group: 'rage_click', expect: { rage_click: 1 },
    run: async (u) => { await u.open('/buttons'); await u.clicks('#picture', 4, 200); } },
  { name: 'three clicks on a picture spread over 1.6 s (inside the window)', group: 'rage_click', expect: { rage_click: 1 },
    run: async (u) => { await u.open('/buttons'); await u.clicks('#picture', 3, 800); } },
  { name: 'three clicks on a picture spread over 2.4 s (past the window)', group: 'rage_click', expect: {},
    run: async (u) => { await u.open('/buttons'); await u.clicks('#picture', 3, 1200); } },
  { name: 'three quick clicks where the remote config asks for four', group: 'rage_click', expect: {}, config: { rage_click: { clicks: 4 } },
    run: async (u) => { await u.open('/buttons'); await u.clicks('#picture', 3, 250); } },

  // dead_click
  { name: 'one click on a button that does nothing', group: 'dead_click', expect: { dead_click: 1 }, match: [{ type: 'dead_click', element: '#dead', confidence: 1 }],
    run: async (u) => { await u.open('/buttons'); await u.clicks('#dead'); } },
  { name: 'a click on text with a pointer cursor', group: 'dead_click', expect: { dead_click: 1 }, match: [{ type: 'dead_click', element: '#fake', confidence: 0.6 }],
    run: async (u) => { await u.open('/buttons'); await u.clicks('#fake'); } },
  { name: 'a click on underlined text styled like a link', group: 'dead_click', expect: { dead_click: 1 }, match: [{ type: 'dead_click', element: '#terms', confidence: 0.6 }],
    run: async (u) => { await u.open('/buttons'); await u.clicks('#terms'); } },
  { name: 'a button answered after 1.5 s (inside the wait)', group: 'dead_click', expect: {},
    run: async (u) => { await u.open('/buttons?delay=1500'); await u.clicks('#later'); } },
  { name: 'a button answered after 2.5 s (past the wait)', group: 'dead_click', expect: { dead_click: 1 },
    run: async (u) => { await u.open('/buttons?delay=2500'); await u.clicks('#later'); } },
  { name: 'a dead button while a clock ticks in the header', group: 'dead_click', expect: { dead_click: 1 },
    run: async (u) => { await u.open('/buttons?clock=header'); await pause(1500); await u.clicks('#dead'); } },
  { name: 'a dead button while a clock ticks next to it', group: 'dead_click', expect: { dead_click: 1 },
    run: async (u) => { await u.open('/buttons?clock=main'); await pause(3000); await u.clicks('#dead'); } },

  // disabled_element_attempt
  { name: 'two presses on a disabled Pay button', group: 'disabled_element_attempt', expect: { disabled_element_attempt: 1 }, match: [{ type: 'disabled_element_attempt', element: '#pay' }],
    run: async (u) => { await u.open('/disabled'); await u.clicks('#pay', 2, 600); } },
  { name: 'one press on a disabled button (below the threshold)', group: 'disabled_element_attempt', expect: {},
    run: async (u) => { await u.open('/disabled'); await u.clicks('#pay'); } },
  { name: 'three presses on an aria-disabled control', group: 'disabled_element_attempt', expect: { disabled_element_attempt: 1 }, match: [{ type: 'disabled_element_attempt', element: '#continue' }],
    run: async (u) => { await u.open('/disabled'); await u.clicks('#continue', 3, 600); } },

  // form_restart
  { name: 'two fields filled, both cleared, the first filled again', group: 'form_restart', expect: { form_restart: 1 },
    run: async (u) => {
      await u.open('/forms');
      await u.type('#name', 'Ann'); await u.type('#email', 'ann@example.com');
      await u.clear('#email'); await u.clear('#name'); await u.type('#name', 'Ann');
    } },
  { name: 'one field filled, cleared and filled again (below the threshold)', group: 'form_restart', expect: {},
    run: async (u) => { await u.open('/forms'); await u.type('#name', 'Ann'); await u.clear('#name'); await u.type('#name', 'Anne'); } },
  { name: 'three fields filled, the form reset, the first filled again', group: 'form_restart', expect: { form_restart: 1 },
    run: async (u) => {
      await u.open('/forms');
      await u.type('#name', 'Ann'); await u.type('#email', 'ann@example.com'); await u.type('#city', 'Leeds');
      await u.clicks('#clear'); await u.type('#name', 'Ann');
    } },

  // form_friction
  { name: 'a field focused and left three times without a change', group: 'form_friction', expect: { form_friction: 1 }, match: [{ type: 'form_friction', element: '#email' }],
    run: async (u) => {
      await u.open('/forms');
      await u.clicks('#email');
      for (const key of ['Tab', 'Shift+Tab', 'Tab', 'Shift+Tab', 'Tab']) { await u.key(key); await pause(150); }
    } },
  { name: 'a field focused and left twice (below the threshold)', group: 'form_friction', expect: {},
    run: async (u) => {
      await u.open('/forms');
      await u.clicks('#email');
      for (const key of ['Tab', 'Shift+Tab', 'Tab']) { await u.key(key); await pause(150); }
    } },
  { name: 'submitting an empty required field three times without typing', group: 'form_friction', expect: { form_friction: 1 },
    run: async (u) => { await u.open('/validate'); for (let i = 0; i < 3; i++) { await u.clicks('#subscribe'); await pause(1500); } } },

  // form_validation_loop
  { name: 'the same native validation error after each of three edits', group: 'form_validation_loop', expect: { form_validation_loop: 1 }, match: [{ type: 'form_validation_loop', element: '#email' }],
    run: async (u) => {
      await u.open('/validate');
      await u.type('#email', 'jane');
      for (const more of ['x', 'y', '']) { await u.clicks('#subscribe'); await pause(800); if (more) await u.page.keyboard.type(more); await pause(400); }
    } },
  { name: 'the same validation error twice (below the threshold)', group: 'form_validation_loop', expect: {},
    run: async (u) => {
      await u.open('/validate');
      await u.type('#email', 'jane');
      for (const more of ['x', '']) { await u.clicks('#subscribe'); await pause(800); if (more) await u.page.keyboard.type(more); await pause(400); }
    } },
  { name: 'a scripted error (aria-invalid and its message) after each of three edits', group: 'form_validation_loop', expect: { form_validation_loop: 1 }, match: [{ type: 'form_validation_loop', element: '#phone' }],
    run: async (u) => {
      await u.open('/validate-js');
      await u.type('#phone', '12');
      for (const more of ['3', '4', '']) { await u.clicks('#create'); await pause(800); if (more) await u.type('#phone', more); await pause(400); }
    } },

  // error_encounter
  { name: 'a coupon that fails with a server error and says so', group: 'error_encounter', expect: { error_encounter: 1 }, match: [{ type: 'error_encounter', element: '#apply', label: 'HTTP 500' }],
    run: async (u) => { await u.open('/coupon'); await u.type('#code', 'SPRING'); await u.clicks('#apply'); await u.page.locator('[role=alert]').waitFor(); } },
  { name: 'a button whose handler throws', group: 'error_encounter', expect: { error_encounter: 1 }, match: [{ type: 'error_encounter', element: '#throw', label: 'RangeError: Basket total out of range' }],
    run: async (u) => { await u.open('/coupon'); await u.clicks('#throw'); } },
  { name: 'a request the click started 0.8 s later fails', group: 'error_encounter', expect: { error_encounter: 1 },
    run: async (u) => { await u.open('/coupon?after=800'); await u.clicks('#refresh'); await pause(1500); } },
  { name: 'a request started 1.3 s after the click fails (not the click\'s)', group: 'error_encounter', expect: {},
    run: async (u) => { await u.open('/coupon?after=1300'); await u.clicks('#refresh'); await pause(1500); } },
  { name: 'a background request started before a click fails after it', group: 'error_encounter', expect: {},
    run: async (u) => { await u.open('/coupon?poll=1500&ms=1500'); await pause(1800); await u.clicks('#sort'); await pause(2000); } },

  // form_abandonment
  { name: 'a field filled, then the page left by a link', group: 'form_abandonment', expect: { form_abandonment: 1 }, match: [{ type: 'form_abandonment', element: '#signup', page: '/forms' }],
    run: async (u) => { await u.open('/forms'); await u.type('#name', 'Ann'); await u.loads(() => u.clicks('#away')); } },
  { name: 'a field only focused, then the page left (below the threshold)', group: 'form_abandonment', expect: {},
    run: async (u) => { await u.open('/forms'); await u.clicks('#name'); await u.loads(() => u.clicks('#away')); } },
  { name: 'a form in a single-page app filled, then another route', group: 'form_abandonment', expect: { form_abandonment: 1 }, match: [{ type: 'form_abandonment', page: '/app/profile' }],
    run: async (u) => { await u.open('/app/profile'); await u.type('#nick', 'annie'); await u.type('#bio', 'Hi'); await u.clicks('a[href="/app/settings"]'); } },

  // u_turn_navigation
  { name: 'a link, then Back within a second (the page comes from the back-forward cache)', group: 'u_turn_navigation', expect: { u_turn_navigation: 1 }, match: [{ type: 'u_turn_navigation', page: '/next' }],
    run: async (u) => { await u.open('/buttons'); await u.loads(() => u.clicks('#next')); await pause(800); await u.back(); } },
  { name: 'a link, then Back after 3.5 s (inside the window)', group: 'u_turn_navigation', expect: { u_turn_navigation: 1 },
    run: async (u) => { await u.open('/buttons'); await u.loads(() => u.clicks('#next')); await pause(3500); await u.back(); } },
  { name: 'a link, then Back after 6.5 s (past the window)', group: 'u_turn_navigation', expect: {},
    run: async (u) => { await u.open('/buttons'); await u.loads(() => u.clicks('#next')); await pause(6500); await u.back(); } },
  { name: 'a route in a single-page app, then Back', group: 'u_turn_navigation', expect: { u_turn_navigation: 1 }, match: [{ type: 'u_turn_navigation', page: '/app/settings' }],
    run: async (u) => { await u.open('/app'); await u.clicks('a[href="/app/settings"]'); await pause(1000); await u.back(); } },

  // dead_end_submit
  { name: 'a submit click nothing answers', group: 'dead_end_submit', expect: { dead_end_submit: 1 }, match: [{ type: 'dead_end_submit', element: '#send' }],
    run: async (u) => { await u.open('/submit'); await u.type('#message', 'Hello'); await u.clicks('#send'); } },
  { name: 'Enter in a form nothing answers', group: 'dead_end_submit', expect: { dead_end_submit: 1 },
    run: async (u) => { await u.open('/submit'); await u.type('#message', 'Hello'); await u.key('Enter'); } },
  { name: 'a submit answered after 2.5 s (inside the wait)', group: 'dead_end_submit', expect: {},
    run: async (u) => { await u.open('/submit?delay=2500'); await u.type('#message', 'Hello'); await u.clicks('#send'); } },
  { name: 'a submit answered after 3.5 s (past the wait)', group: 'dead_end_submit', expect: { dead_end_submit: 1 },
    run: async (u) => { await u.open('/submit?delay=3500'); await u.type('#message', 'Hello'); await u.clicks('#send'); } },

  // layout_shift_rage (the banner is 220 px high: the pointer rests where the target lands, so
  // the clicks follow the shift as closely as a person's would, however busy the machine is)
  { name: 'a banner pushes the button under the pointer, three clicks right after', group: 'layout_shift_rage', expect: { layout_shift_rage: 1 }, match: [{ type: 'layout_shift_rage', element: '#continue' }],
    run: async (u) => { await u.open('/shift'); await u.hover('#continue', 220); await u.showBanner(); await u.clicks('here', 3, 200); } },
  { name: 'a banner pushes a picture under the pointer, four clicks right after', group: 'layout_shift_rage', expect: { layout_shift_rage: 1 },
    run: async (u) => { await u.open('/shift'); await u.hover('#picture', 220); await u.showBanner(); await u.clicks('here', 4, 200); } },
  { name: 'three clicks 1.5 s after the shift (a rage click, not a shift\'s)', group: 'layout_shift_rage', expect: { rage_click: 1 },
    run: async (u) => { await u.open('/shift'); await u.hover('#continue', 220); await u.showBanner(); await pause(1500); await u.clicks('here', 3, 200); } },
  { name: 'two clicks right after the shift (below the threshold)', group: 'layout_shift_rage', expect: {},
    run: async (u) => { await u.open('/shift'); await u.hover('#picture', 220); await u.showBanner(); await u.clicks('here', 2, 200); } },

  // thrash_cursor
  { name: 'the pointer going back and forth over text, six reversals', group: 'thrash_cursor', expect: { thrash_cursor: 1 },
    run: async (u) => { await u.open('/article'); await u.sweep({ x: 300, y: 300 }, 90, 7, 1); } },
  { name: 'five reversals (below the threshold)', group: 'thrash_cursor', expect: {},
    run: async (u) => { await u.open('/article'); await u.sweep({ x: 300, y: 300 }, 90, 6, 1); } },
  { name: 'back and forth over a plan\'s button, eight legs', group: 'thrash_cursor', expect: { thrash_cursor: 1 }, match: [{ type: 'thrash_cursor', element: '#pro' }],
    run: async (u) => { await u.open('/pricing'); const pro = await u.at('#pro'); await u.sweep({ x: pro.x - 30, y: pro.y }, 60, 8, 1); } },
  { name: 'many 20 px wiggles (legs below the minimum)', group: 'thrash_cursor', expect: {},
    run: async (u) => { await u.open('/article'); await u.sweep({ x: 300, y: 300 }, 20, 12); } },

  // jerky_scrolling
  { name: 'scrolling down and up, four reversals', group: 'jerky_scrolling', expect: { jerky_scrolling: 1 },
    run: async (u) => { await u.open('/article'); await u.wheel([800, -400, 400, -400, 400]); } },
  { name: 'three reversals (below the threshold)', group: 'jerky_scrolling', expect: {},
    run: async (u) => { await u.open('/article'); await u.wheel([800, -400, 400, -400]); } },
  { name: 'six reversals (one signal)', group: 'jerky_scrolling', expect: { jerky_scrolling: 1 },
    run: async (u) => { await u.open('/article'); await u.wheel([800, -300, 300, -300, 300, -300, 300]); } },

  // reload_retry
  { name: 'a reload 3 s after the page loaded', group: 'reload_retry', expect: { reload_retry: 1 }, match: [{ type: 'reload_retry', confidence: 0.7 }],
    run: async (u) => { await u.open('/buttons'); await pause(3000); await u.reload(); } },
  { name: 'a reload after a dead click', group: 'reload_retry', expect: { dead_click: 1, reload_retry: 1 }, match: [{ type: 'reload_retry', confidence: 1 }],
    run: async (u) => { await u.open('/buttons'); await u.clicks('#dead'); await pause(2500); await u.reload(); } },
  { name: 'two reloads (one signal)', group: 'reload_retry', expect: { reload_retry: 1 },
    run: async (u) => { await u.open('/buttons'); await pause(2000); await u.reload(); await pause(2000); await u.reload(); } },
  { name: 'a reload 28.5 s after the load (inside the window)', group: 'reload_retry', expect: { reload_retry: 1 }, long: true,
    run: async (u) => { const start = Date.now(); await u.open('/buttons'); await pause(28_500 - (Date.now() - start)); await u.reload(); } },
  { name: 'a reload 31.5 s after the load (past the window)', group: 'reload_retry', expect: {}, long: true,
    run: async (u) => { const start = Date.now(); await u.open('/buttons'); await pause(31_500 - (Date.now() - start)); await u.reload(); } },

  // load_abandonment
  { name: 'a slow page left after 4 s, before it loaded', group: 'load_abandonment', expect: { load_abandonment: 1 }, match: [{ type: 'load_abandonment', page: '/slow' }],
    run: async (u) => {
      const start = Date.now();
      await u.open('/slow?img=9000', 'commit');
      const link = await u.at('#leave');
      await pause(4000 - (Date.now() - start)); await u.loads(() => u.clicks(link));
    } },
  { name: 'a slow page left after 1.5 s (below the threshold)', group: 'load_abandonment', expect: {},
    run: async (u) => {
      const start = Date.now();
      await u.open('/slow?img=9000', 'commit');
      const link = await u.at('#leave');
      await pause(1500 - (Date.now() - start)); await u.loads(() => u.clicks(link));
    } },
  { name: 'a page still streaming (before DOMContentLoaded) left for another address', group: 'load_abandonment', expect: { load_abandonment: 1 }, match: [{ type: 'load_abandonment', page: '/stream' }],
    run: async (u) => { const start = Date.now(); await u.open('/stream?ms=12000', 'commit'); await pause(4000 - (Date.now() - start)); await u.open('/next'); } },

  // query_thrashing
  { name: 'three different searches', group: 'query_thrashing', expect: { query_thrashing: 1 }, match: [{ type: 'query_thrashing', element: '#q', label: 'Search products' }],
    run: async (u) => {
      await u.open('/search');
      for (const q of ['boots', 'winter boots', 'warm shoes']) { await u.type('#q', q); await u.loads(() => u.key('Enter')); }
    } },
  { name: 'the same search three times', group: 'query_thrashing', expect: {},
    run: async (u) => {
      await u.open('/search');
      for (let i = 0; i < 3; i++) { await u.type('#q', 'boots'); await u.loads(() => u.key('Enter')); }
    } },
  { name: 'three suggestions that change only ?q=', group: 'query_thrashing', expect: { query_thrashing: 1 },
    run: async (u) => { await u.open('/browse'); for (const chip of ['boots', 'sandals', 'sneakers']) { await u.clicks(`[data-q=${chip}]`); await pause(700); } } },
  { name: 'two suggestions (below the threshold)', group: 'query_thrashing', expect: {},
    run: async (u) => { await u.open('/browse'); for (const chip of ['boots', 'sandals']) { await u.clicks(`[data-q=${chip}]`); await pause(700); } } },
];

const benign: Session[] = [
  { name: 'triple-click to select a paragraph', group: 'benign', expect: {},
    run: async (u) => { await u.open('/article'); await u.clicks(article(2), 3, 120); } },
  { name: 'double-click a word', group: 'benign', expect: {},
    run: async (u) => { await u.open('/article'); await u.clicks(article(3), 2, 120); } },
  { name: 'a number stepper clicked quickly', group: 'benign', expect: {},
    run: async (u) => { await u.open('/widgets'); await u.clicks('#plus', 6, 150); } },
  { name: 'a size input stepped quickly (the value set by script)', group: 'benign', expect: {},
    run: async (u) => { await u.open('/widgets'); await u.clicks('#up', 5, 150); } },
  { name: 'a carousel arrow clicked through', group: 'benign', expect: {},
    run: async (u) => { await u.open('/widgets'); await u.clicks('#next-photo', 5, 300); } },
  { name: 'a like toggled on and off', group: 'benign', expect: {},
    run: async (u) => { await u.open('/widgets'); await u.clicks('#like', 2, 1000); } },
  { name: 'a download link (an attachment, no download attribute)', group: 'benign', expect: {},
    run: async (u) => { await u.open('/widgets'); await u.clicks('#download'); } },
  { name: 'links opened in a new tab (Ctrl+click and target=_blank)', group: 'benign', expect: {},
    run: async (u) => { await u.open('/widgets'); await u.clicks('#plain', 1, 0, ['Control']); await pause(1000); await u.clicks('#newtab'); } },
  { name: 'a slider thumb dragged', group: 'benign', expect: {},
    run: async (u) => {
      await u.open('/widgets');
      const { x, y } = await u.at('#thumb');
      await u.page.mouse.move(x, y); await u.page.mouse.down();
      await u.page.mouse.move(x + 160, y, { steps: 12 }); await u.page.mouse.move(x + 60, y, { steps: 8 }); await u.page.mouse.up();
    } },
  { name: 'reading a long article, scrolling steadily', group: 'benign', expect: {},
    run: async (u) => { await u.open('/article'); await u.wheel([250, 250, 250, 250, 250, -150, 250, 250, 250, 250], 600); } },
  { name: 'a search refined once', group: 'benign', expect: {},
    run: async (u) => {
      await u.open('/search');
      for (const q of ['boots', 'brown boots']) { await u.type('#q', q); await u.loads(() => u.key('Enter')); }
    } },
  { name: 'a page reloaded after a minute', group: 'benign', expect: {}, long: true,
    run: async (u) => { await u.open('/article'); await pause(61_000); await u.reload(); } },
  { name: 'a form filled and submitted normally', group: 'benign', expect: {},
    run: async (u) => {
      await u.open('/forms');
      await u.type('#name', 'Ann'); await u.type('#email', 'ann@example.com'); await u.type('#city', 'Leeds');
      await u.loads(() => u.clicks('#send'));
    } },
  { name: 'a form with one validation error, fixed on the first try', group: 'benign', expect: {},
    run: async (u) => {
      await u.open('/validate');
      await u.type('#email', 'jane'); await u.clicks('#subscribe'); await pause(800);
      await u.page.keyboard.type('@example.com'); await u.loads(() => u.clicks('#subscribe'));
    } },
  { name: 'a slow page the user waits for', group: 'benign', expect: {},
    run: async (u) => { await u.open('/slow?img=3500', 'commit'); await u.page.waitForLoadState('load'); await pause(800); await u.loads(() => u.clicks('#leave')); } },
  { name: 'choosing a plan after a look across the table', group: 'benign', expect: {},
    run: async (u) => { await u.open('/pricing'); await u.sweep(await u.at('#basic'), 500, 2, 8); await u.clicks('#pro'); } },
  { name: 'moving through a single-page app', group: 'benign', expect: {},
    run: async (u) => {
      await u.open('/app');
      for (const route of ['/app/settings', '/app/profile', '/app']) { await u.clicks(`a[href="${route}"]`); await pause(5500); }
    } },
  { name: 'a link followed, then on to the next page', group: 'benign', expect: {},
    run: async (u) => { await u.open('/buttons'); await u.loads(() => u.clicks('#next')); await u.loads(() => u.clicks('#article')); } },
];

export const SESSIONS: Session[] = [...planted, ...benign];
