// The simulated site: an online shop with a SaaS plan ("Acme Shop"). Pages, how visitors move
// between them, the elements they click, and the problems planted in it. Data only: the
// generator (generate.ts) walks it with a seeded PRNG.

export const SITE_ORIGIN = 'https://shop.example';

export interface ElementSpec {
  selector: string;
  label: string;
  /** Where it sits in the viewport, 0..1000 (desktop; mobile is derived). */
  vx: number;
  vy: number;
}

export interface PageSpec {
  /** The path pattern; `:id` and `:slug` are filled in per visit. */
  path: string;
  /** Median seconds on the page. */
  dwell: number;
  next: readonly (readonly [string, number])[];
  /** Elements that attract the odd mis-click (baseline friction). */
  elements: readonly ElementSpec[];
}

const el = (selector: string, label: string, vx: number, vy: number): ElementSpec => ({ selector, label, vx, vy });

export const EXIT = 'exit';

export const PAGES: Record<string, PageSpec> = {
  '/': {
    path: '/', dwell: 14,
    next: [['/products', 34], ['/pricing', 20], ['/search', 12], ['/signup', 8], ['/login', 9], ['/blog/:slug', 5], [EXIT, 12]],
    elements: [el('img.hero', 'Summer collection', 500, 300), el('a.nav-deals', 'Deals', 620, 40), el('span.badge-new', 'New', 300, 520)],
  },
  '/products': {
    path: '/products', dwell: 22,
    next: [['/products/:id', 55], ['/search', 18], ['/', 4], ['/cart', 5], [EXIT, 18]],
    elements: [el('button.sort', 'Sort by', 850, 160), el('div.product-card', 'Product', 400, 500), el('a.pagination-next', 'Next', 600, 920)],
  },
  '/search': {
    path: '/search', dwell: 25,
    next: [['/products/:id', 50], ['/search', 10], ['/products', 8], [EXIT, 32]],
    elements: [el('input#q', 'Search', 500, 90), el('button.filter-apply', 'Apply filters', 180, 640), el('div.result', 'Result', 560, 420)],
  },
  '/products/:id': {
    path: '/products/:id', dwell: 35,
    next: [['/cart', 42], ['/products', 14], ['/products/:id', 10], ['/search', 6], [EXIT, 28]],
    elements: [el('button.add-to-cart', 'Add to cart', 780, 520), el('img.gallery', 'Product photo', 300, 420), el('select#size', 'Size', 780, 430)],
  },
  '/cart': {
    path: '/cart', dwell: 28,
    next: [['/checkout', 70], ['/products', 8], ['/products/:id', 4], [EXIT, 18]],
    elements: [el('button.qty-plus', '+', 640, 380), el('a.continue-shopping', 'Continue shopping', 200, 860), el('button#apply-coupon', 'Apply coupon', 760, 610)],
  },
  '/checkout': {
    path: '/checkout', dwell: 70,
    next: [['/checkout/complete', 70], ['/cart', 8], [EXIT, 22]],
    elements: [el('input#card-number', 'Card number', 450, 470), el('button#place-order', 'Place order', 500, 840), el('a.terms', 'Terms', 500, 900)],
  },
  '/checkout/complete': { path: '/checkout/complete', dwell: 12, next: [['/', 10], ['/products', 10], [EXIT, 80]], elements: [el('a.order-status', 'Track order', 500, 520)] },
  '/pricing': {
    path: '/pricing', dwell: 40,
    next: [['/signup', 42], ['/login', 8], ['/', 8], ['/blog/:slug', 4], [EXIT, 38]],
    elements: [el('button.toggle-annual', 'Annual', 500, 210), el('div.plan-card', 'Pro plan', 500, 500), el('a.compare', 'Compare plans', 500, 880)],
  },
  '/signup': {
    path: '/signup', dwell: 55,
    next: [['/onboarding', 66], ['/login', 6], ['/pricing', 6], [EXIT, 22]],
    elements: [el('input#email', 'Email', 500, 360), el('button#create-account', 'Create account', 500, 640), el('input#terms', 'I agree to the terms', 420, 560)],
  },
  '/onboarding': { path: '/onboarding', dwell: 60, next: [['/dashboard', 80], [EXIT, 20]], elements: [el('button.skip', 'Skip', 880, 80)] },
  '/login': { path: '/login', dwell: 18, next: [['/dashboard', 82], ['/signup', 4], [EXIT, 14]], elements: [el('a.forgot', 'Forgot password?', 500, 620)] },
  '/dashboard': {
    path: '/dashboard', dwell: 45,
    next: [['/settings', 16], ['/settings/billing', 12], ['/products', 12], [EXIT, 60]],
    elements: [el('div.chart', 'Orders chart', 500, 450), el('button.export', 'Export', 880, 140)],
  },
  '/settings': { path: '/settings', dwell: 30, next: [['/settings/billing', 20], ['/dashboard', 30], [EXIT, 50]], elements: [el('button.save', 'Save', 500, 820)] },
  '/settings/billing': { path: '/settings/billing', dwell: 40, next: [['/dashboard', 40], [EXIT, 60]], elements: [el('button.change-plan', 'Change plan', 500, 420)] },
  '/blog/:slug': { path: '/blog/:slug', dwell: 95, next: [['/', 16], ['/pricing', 10], ['/blog/:slug', 8], [EXIT, 66]], elements: [el('a.share', 'Share', 880, 300)] },
};

export const ENTRIES: readonly (readonly [string, number])[] = [
  ['/', 36], ['/products/:id', 22], ['/pricing', 11], ['/blog/:slug', 9], ['/search', 9], ['/products', 9], ['/login', 4],
];

export const BLOG_SLUGS = ['checkout-tips', 'summer-sale', 'how-we-ship', 'sizing-guide', 'release-notes'];

export const REFERRERS: readonly (readonly [string | null, number])[] = [
  [null, 40], ['https://www.google.com/', 35], ['https://news.ycombinator.com/', 6], ['https://t.co/abc', 6], ['https://mail.example.org/newsletter', 8], ['https://www.bing.com/', 5],
];

export interface DeviceSpec { type: 'desktop' | 'mobile' | 'tablet'; weight: number; uas: readonly string[]; widths: readonly number[]; heights: readonly number[] }

export const DEVICES: readonly DeviceSpec[] = [
  {
    type: 'desktop', weight: 56,
    uas: [
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36',
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:132.0) Gecko/20100101 Firefox/132.0',
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36',
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36',
    ],
    widths: [1280, 1366, 1440, 1536, 1920], heights: [720, 768, 800, 864, 1080],
  },
  {
    type: 'mobile', weight: 37,
    uas: [
      'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
      'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Mobile Safari/537.36',
      'Mozilla/5.0 (Linux; Android 13; SM-S911B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Mobile Safari/537.36',
    ],
    widths: [360, 390, 393, 412, 430], heights: [740, 844, 852, 915, 932],
  },
  {
    type: 'tablet', weight: 7,
    uas: ['Mozilla/5.0 (iPad; CPU OS 17_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.6 Mobile/15E148 Safari/604.1'],
    widths: [768, 820, 1024], heights: [1024, 1180, 1366],
  },
];

/** Relative traffic by UTC hour (a European and American audience) and by weekday (Sunday first). */
export const HOURLY = [3, 2, 2, 2, 2, 3, 4, 6, 8, 9, 10, 10, 10, 10, 11, 12, 12, 12, 11, 10, 9, 7, 5, 4];
export const WEEKDAY = [0.75, 1.05, 1.05, 1.0, 1.0, 0.95, 0.8];

/**
 * The story of the simulated period, as fractions of it (so a 3-day run and a 14-day run tell
 * the same story): a routine deploy; a fix for the search filters; a fix for the card form;
 * a cart redesign that breaks the coupon button and brings the search bug back.
 */
export const TIMELINE = {
  routineDeploy: 0.15,
  searchFix: 0.35,
  cardFix: 0.55,
  badDeploy: 0.72,
} as const;

export const VERSIONS = {
  initial: '2.0.4',
  routineDeploy: '2.1.0',
  searchFix: '2.2.0',
  cardFix: '2.3.0',
  badDeploy: '2.4.0',
} as const;

/** The planted problems: which element, which signals, and when they happen. */
export const PROBLEMS = {
  brokenCheckout: { page: '/checkout', selector: 'button#place-order', label: 'Place order', types: ['dead_click', 'rage_click'] },
  disabledSubmit: { page: '/signup', selector: 'button#create-account', label: 'Create account', types: ['disabled_element_attempt'] },
  failingForm: { page: '/checkout', selector: 'input#card-number', label: 'Card number', types: ['form_validation_loop', 'form_friction'] },
  searchFilters: { page: '/search', selector: 'button.filter-apply', label: 'Apply filters', types: ['dead_click'] },
  brokenCoupon: { page: '/cart', selector: 'button#apply-coupon', label: 'Apply coupon', types: ['error_encounter', 'rage_click'] },
} as const;

/** Conversion events (the defaults of revenue_config) and their values in cents. */
export const ORDER_VALUES = [2400, 3900, 5900, 7400, 8900, 12900, 15900];
export const PLAN_VALUES: readonly (readonly [string, number])[] = [['starter', 2900], ['pro', 4900], ['business', 9900]];
