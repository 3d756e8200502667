// The corpus's fixture pages: small, plain pages with what real sites have (dead and working
// buttons, forms with native and scripted validation, a coupon service that fails, a stepper,
// a carousel, a like toggle, downloads, a long article, search, an SPA router, slow loads).
// Each page's own script reads its query string for its variations (a delay, a clock); the
// SDK never sends query strings. The script tag carries the session's key.

const STYLE = `body { margin: 0; font: 16px/1.5 sans-serif; } header { display: flex; gap: 16px; padding: 12px 24px; background: #eee; }
main { padding: 24px; max-width: 900px; } button, .chip { font: inherit; padding: 8px 16px; margin: 4px; }
#picture { width: 240px; height: 160px; background: #cde; } .row { display: flex; gap: 12px; align-items: center; margin: 12px 0; }
.track { display: flex; transition: transform 0.2s; } .slide { flex: 0 0 300px; height: 120px; background: #dfd; margin-right: 8px; }
.viewport { width: 300px; overflow: hidden; } #rail { position: relative; width: 400px; height: 12px; background: #ddd; margin: 24px 0; }
#thumb { position: absolute; left: 0; top: -8px; width: 28px; height: 28px; background: #36c; cursor: pointer; border-radius: 50%; }
table { border-collapse: collapse; } td, th { padding: 16px 32px; border: 1px solid #ccc; }`;

const HEADER = `<header><a href="/article">Articles</a><a href="/pricing">Pricing</a><a href="/search">Search</a><span id="clock" aria-hidden="true"></span></header>`;

/** A clock that ticks every second where the query's `clock` says (header, main). */
const CLOCK = `<script>(() => {
  const where = new URLSearchParams(location.search).get('clock');
  if (!where) return;
  const clock = where === 'main' ? document.getElementById('main-clock') : document.getElementById('clock');
  const tick = () => { clock.textContent = new Date().toLocaleTimeString(); };
  tick();
  setInterval(tick, 1000);
})();</script>`;

function layout(title: string, key: string, body: string, script = ''): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title><style>${STYLE}</style>
<script async src="/sdk.js" data-key="${key}"></script></head><body>${HEADER}<main>${body}</main>${CLOCK}${script ? `<script>${script}</script>` : ''}</body></html>`;
}

const query = `const q = new URLSearchParams(location.search); const num = (name, d) => Number(q.get(name) ?? d);`;

const LOREM = 'The quiet harbour town wakes slowly. Fishing boats return with the tide, gulls circle the market, and the bakery on the corner opens its shutters to the smell of fresh bread. ';

const PAGES: Record<string, (key: string) => string> = {
  // Buttons that do nothing, only look clickable, respond late, and a picture; ?delay= for #later.
  '/buttons': (key) => layout('Buttons', key, `<h1>Your basket</h1><p id="main-clock"></p>
<div class="row"><button id="dead">Buy now</button><div id="fake" style="cursor: pointer">Save for later</div></div>
<p>By ordering you accept our <span id="terms" style="text-decoration: underline; color: #06c">terms of sale</span>.</p>
<figure><div id="picture"></div><figcaption>Our shop</figcaption></figure>
<div class="row"><button id="later">Check availability</button><span id="later-out"></span></div>
<p><a id="next" href="/next">Continue to delivery</a></p>`, `${query}
document.getElementById('later').addEventListener('click', () => {
  setTimeout(() => { document.getElementById('later-out').textContent = 'In stock'; }, num('delay', 0));
});`),

  '/next': (key) => layout('Next', key, `<h1>Delivery</h1><p>Choose how you want your order delivered.</p><p><a id="back" href="/buttons">Back to basket</a> <a id="article" href="/article">Read our story</a></p>`),

  '/thanks': (key) => layout('Thanks', key, '<h1>Thank you</h1><p>We got it.</p>'),

  '/disabled': (key) => layout('Checkout', key, `<h1>Checkout</h1><form id="checkout"><button id="pay" type="submit" disabled>Pay</button></form>
<div class="row"><div id="continue" role="button" aria-disabled="true" tabindex="0">Continue</div></div>`),

  // A sign-up form: native submit to /thanks; a reset button.
  '/forms': (key) => layout('Sign up', key, `<h1>Sign up</h1><form id="signup" action="/thanks">
<p><label>Name <input id="name" name="name"></label></p><p><label>Email <input id="email" name="email"></label></p>
<p><label>City <input id="city" name="city"></label></p><button id="clear" type="reset">Clear</button> <button id="send" type="submit">Sign up</button></form>
<p><a id="away" href="/next">Not now</a></p>`),

  // Native validation: a required email field.
  '/validate': (key) => layout('Newsletter', key, `<h1>Newsletter</h1><form id="news" action="/thanks">
<p><label>Email <input id="email" name="email" type="email" required></label></p><button id="subscribe" type="submit">Subscribe</button></form>`),

  // Scripted validation: aria-invalid and an error text the field points to.
  '/validate-js': (key) => layout('Account', key, `<h1>Account</h1><form id="account" novalidate>
<p><label>Phone <input id="phone" name="phone" aria-describedby="phone-error"></label> <span id="phone-error"></span></p>
<button id="create" type="submit">Create account</button></form>`, `
const form = document.getElementById('account'), phone = document.getElementById('phone'), error = document.getElementById('phone-error');
phone.addEventListener('input', () => { phone.removeAttribute('aria-invalid'); error.textContent = ''; });
form.addEventListener('submit', (e) => {
  e.preventDefault();
  if (/^\\+?[0-9 ]{10,}$/.test(phone.value)) { location.href = '/thanks'; return; }
  phone.setAttribute('aria-invalid', 'true');
  error.textContent = 'Enter a phone number with at least 10 digits';
});`),

  // A coupon service that fails; a button that throws; a request started ?after= ms after a
  // click; a background request started ?poll= ms after load that fails ?ms= later.
  '/coupon': (key) => layout('Coupon', key, `<h1>Coupon</h1><form id="coupon"><label>Code <input id="code"></label> <button id="apply" type="submit">Apply coupon</button><div id="coupon-msg"></div></form>
<section><div class="row"><button id="refresh">Refresh prices</button><span id="status" role="status"></span></div>
<div class="row"><button id="throw">Recalculate</button><span id="calc"></span></div>
<div class="row"><button id="sort">Sort by price</button><span id="order"></span></div></section>`, `${query}
document.getElementById('coupon').addEventListener('submit', async (e) => {
  e.preventDefault();
  const res = await fetch('/api/fail');
  if (!res.ok) document.getElementById('coupon-msg').innerHTML = '<p role="alert">Coupon service failed</p>';
});
document.getElementById('refresh').addEventListener('click', () => {
  document.getElementById('status').textContent = 'Refreshing…';
  setTimeout(() => { fetch('/api/fail').catch(() => {}); }, num('after', 0));
});
document.getElementById('throw').addEventListener('click', () => {
  document.getElementById('calc').textContent = 'Calculating…';
  throw new RangeError('Basket total out of range');
});
document.getElementById('sort').addEventListener('click', () => { document.getElementById('order').textContent = 'Cheapest first'; });
if (q.get('poll')) setTimeout(() => { fetch('/api/fail?ms=' + num('ms', 1500)).catch(() => {}); }, num('poll', 0));`),

  // A form whose submit handler answers after ?delay= ms, or never (delay=0).
  '/submit': (key) => layout('Contact', key, `<h1>Contact us</h1><form id="contact"><p><label>Message <input id="message" name="message"></label></p>
<button id="send" type="submit">Send message</button><p id="sent"></p></form>`, `${query}
document.getElementById('contact').addEventListener('submit', (e) => {
  e.preventDefault();
  const ms = num('delay', 0);
  if (ms) setTimeout(() => { document.getElementById('sent').textContent = 'Sent, thank you'; }, ms);
});`),

  // A banner that pushes everything down: it arrives when the page's window.showBanner() is
  // called (the corpus calls it once the pointer is in place, so a busy machine cannot let the
  // banner land before the pointer does), or ?at= ms after load.
  '/shift': (key) => layout('Offer', key, `<div id="banner-slot"></div><h1>Today's offer</h1>
<div class="row"><button id="continue">Continue</button></div><figure><div id="picture"></div></figure>`, `${query}
window.showBanner = () => {
  document.getElementById('banner-slot').innerHTML = '<div id="banner" style="height: 220px; background: #fe9">Free delivery this week</div>';
};
if (q.has('at')) setTimeout(window.showBanner, num('at', 800));`),

  // A pricing table (for a cursor going back and forth).
  '/pricing': (key) => layout('Pricing', key, `<h1>Pricing</h1><table><tr><th>Basic</th><th>Pro</th><th>Team</th></tr>
<tr><td>5 GB</td><td>50 GB</td><td>500 GB</td></tr><tr><td><button id="basic">Choose Basic</button></td><td><button id="pro">Choose Pro</button></td><td><button id="team">Choose Team</button></td></tr></table>
<p id="choice" role="status"></p>`, `for (const b of document.querySelectorAll('td button')) b.addEventListener('click', () => { document.getElementById('choice').textContent = b.textContent + ' selected'; });`),

  // A long article.
  '/article': (key) => layout('Our story', key, `<h1>Our story</h1>${Array.from({ length: 40 }, (_, i) => `<p id="p${i}">${LOREM.repeat(4)}</p>`).join('')}
<p><a id="to-next" href="/next">Next chapter</a></p>`),

  // A page whose image takes ?img= ms: load comes late.
  '/slow': (key) => layout('Gallery', key, `<h1>Gallery</h1><img id="hero" width="400" height="200" alt="Harbour"><p><a id="leave" href="/next">Skip the gallery</a></p>`,
    `document.getElementById('hero').src = '/img?ms=' + (new URLSearchParams(location.search).get('img') ?? 6000);`),

  // The first part of a page whose body streams slowly (the server sends the rest later).
  '/stream': (key) => `<!doctype html><html><head><meta charset="utf-8"><title>Report</title><script async src="/sdk.js" data-key="${key}"></script></head><body><main><h1>Building your report…</h1><!--rest-->`,

  // A search form (a full page load per search) and its results.
  '/search': (key) => layout('Search', key, `<h1>Search</h1><form id="search" role="search" action="/search"><input id="q" name="q" aria-label="Search products"> <button id="go" type="submit">Search</button></form>
<p id="results"></p>`, `const q = new URLSearchParams(location.search).get('q'); if (q) document.getElementById('results').textContent = '12 results';`),

  // Search suggestions that change only the ?q= parameter (no page load).
  '/browse': (key) => layout('Browse', key, `<h1>Browse</h1><div class="row">${['boots', 'sandals', 'sneakers', 'slippers'].map((s) => `<button class="chip" data-q="${s}">${s}</button>`).join('')}</div>
<p id="results" aria-live="polite"></p>`, `for (const chip of document.querySelectorAll('.chip')) chip.addEventListener('click', () => {
  history.pushState({}, '', '/browse?q=' + chip.dataset.q);
  document.getElementById('results').textContent = 'Results for ' + chip.dataset.q;
});`),

  // A small SPA: links with data-route change the route without a page load.
  '/app': (key) => layout('App', key, `<nav><a href="/app" data-route>Home</a> <a href="/app/settings" data-route>Settings</a> <a href="/app/profile" data-route>Profile</a></nav>
<div id="view"></div>`, `
const render = () => {
  const view = document.getElementById('view');
  if (location.pathname === '/app/profile') view.innerHTML = '<h2>Profile</h2><form id="profile"><label>Nickname <input id="nick"></label> <label>Bio <input id="bio"></label></form>';
  else view.innerHTML = '<h2>' + (location.pathname === '/app/settings' ? 'Settings' : 'Home') + '</h2><p>Welcome.</p>';
};
document.addEventListener('click', (e) => {
  const a = e.target.closest('a[data-route]');
  if (!a) return;
  e.preventDefault();
  history.pushState({}, '', a.getAttribute('href'));
  render();
});
addEventListener('popstate', render);
render();`),

  // Things clicked often and on purpose.
  '/widgets': (key) => layout('Widgets', key, `<h1>Widgets</h1>
<section aria-label="Quantity" class="row"><button id="minus" aria-label="Fewer">−</button><span id="count">1</span><button id="plus" aria-label="More">+</button></section>
<div class="row"><button id="down" aria-label="Smaller size">−</button><input id="size" type="number" value="38" aria-label="Size"><button id="up" aria-label="Larger size">+</button></div>
<section aria-label="Photos" aria-roledescription="carousel"><div class="viewport"><div class="track" id="track">${Array.from({ length: 6 }, (_, i) => `<div class="slide">Photo ${i + 1}</div>`).join('')}</div></div>
<button id="prev" aria-label="Previous photo">‹</button><button id="next-photo" aria-label="Next photo" aria-controls="track">›</button></section>
<div class="row"><button id="like" aria-pressed="false">♥ Like</button></div>
<div class="row"><a id="download" href="/file">Download the report (PDF)</a> <a id="newtab" href="/next" target="_blank">Delivery options</a> <a id="plain" href="/next">Delivery</a></div>
<div id="rail"><div id="thumb" role="slider" aria-label="Price limit" aria-valuenow="0"></div></div>`, `
const count = document.getElementById('count');
document.getElementById('plus').addEventListener('click', () => { count.textContent = Number(count.textContent) + 1; });
document.getElementById('minus').addEventListener('click', () => { count.textContent = Math.max(0, Number(count.textContent) - 1); });
const size = document.getElementById('size');
document.getElementById('up').addEventListener('click', () => { size.value = Number(size.value) + 1; });
document.getElementById('down').addEventListener('click', () => { size.value = Number(size.value) - 1; });
let slide = 0;
const show = () => { document.getElementById('track').style.transform = 'translateX(' + (-308 * slide) + 'px)'; };
document.getElementById('next-photo').addEventListener('click', () => { slide = (slide + 1) % 6; show(); });
document.getElementById('prev').addEventListener('click', () => { slide = (slide + 5) % 6; show(); });
const like = document.getElementById('like');
like.addEventListener('click', () => like.setAttribute('aria-pressed', like.getAttribute('aria-pressed') === 'true' ? 'false' : 'true'));
const thumb = document.getElementById('thumb');
let drag = null;
thumb.addEventListener('pointerdown', (e) => { drag = e.clientX - thumb.offsetLeft; thumb.setPointerCapture(e.pointerId); });
thumb.addEventListener('pointermove', (e) => {
  if (drag === null) return;
  const left = Math.max(0, Math.min(372, e.clientX - drag));
  thumb.style.left = left + 'px';
  thumb.setAttribute('aria-valuenow', String(Math.round(left / 3.72)));
});
thumb.addEventListener('pointerup', () => { drag = null; });`),
};

/** The page at `path` for the session `key`, or null. */
export function page(path: string, key: string): string | null {
  return PAGES[path.startsWith('/app') ? '/app' : path]?.(key) ?? null;
}
