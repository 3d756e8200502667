import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { queryThrashing } from '../src/detectors/query-thrashing.ts';
import { DEFAULT_SIGNALS } from '../src/config.ts';
import { html, makeContext } from './helpers.ts';

const S = DEFAULT_SIGNALS.query_thrashing;
const $ = (id: string) => document.getElementById(id) as HTMLInputElement;

function search(text: string, form = 'search', field = 'q') {
  $(field).value = text;
  $(form).dispatchEvent(new Event('submit', { bubbles: true }));
}

describe('query_thrashing', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    history.replaceState({}, '', '/shop');
    html(`<form id="search"><input id="q" name="q" aria-label="Search"></form>
      <div role="search"><form id="site"><input id="box"></form></div>
      <form id="signup"><input id="name" name="name"></form>`);
  });
  afterEach(() => vi.useRealTimers());

  it('fires at the third different search within 60 s, on the search field; a refined search is a different one', () => {
    const { ctx, signals } = makeContext();
    const d = queryThrashing(ctx, S);
    search('boots');
    search('Boots '); // the same search
    search('red boots');
    expect(signals).toHaveLength(0);
    search('warm shoes');
    expect(signals).toEqual([{ type: 'query_thrashing', el: $('q'), confidence: 0.8, count: 3 }]);
    d.stop();
  });

  it('keeps only hashes, in session storage, so searches count across page loads', () => {
    const { ctx, signals } = makeContext();
    queryThrashing(ctx, S).stop();
    const first = queryThrashing(ctx, S);
    search('boots');
    first.stop();
    const second = queryThrashing(ctx, S);
    search('sandals', 'site', 'box'); // a form inside role=search
    const stored = JSON.stringify(ctx.session.get('searches'));
    expect(stored).not.toMatch(/boots|sandals/);
    search('sneakers');
    expect(signals).toHaveLength(1);
    second.stop();
  });

  it('counts a URL change only in a search parameter; not other forms, other parameters, or searches more than 60 s apart', () => {
    const { ctx, signals } = makeContext();
    const d = queryThrashing(ctx, S);
    const go = (url: string) => {
      const from = location.href;
      history.pushState({}, '', url);
      d.route!(from);
    };
    go('/shop?q=boots&page=1');
    go('/shop?q=boots&page=2'); // another parameter
    go('/other?q=sandals'); // another page
    $('name').value = 'Ann';
    $('signup').dispatchEvent(new Event('submit', { bubbles: true }));
    vi.advanceTimersByTime(61_000);
    go('/other?q=sneakers');
    expect(signals).toHaveLength(0);
    go('/other?q=slippers');
    go('/other?q=clogs');
    expect(signals.map((s) => s.type)).toEqual(['query_thrashing']);
    d.stop();
  });
});
