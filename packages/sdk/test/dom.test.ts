import { beforeEach, describe, expect, it } from 'vitest';
import { selectorOf } from '../src/selector.ts';
import { cleanText, redact } from '../src/redact.ts';
import { clickTarget, disabledControl, isIgnored, labelOf, pointOf } from '../src/dom.ts';
import { html, place } from './helpers.ts';

const $ = (selector: string) => document.querySelector(selector)!;

describe('selectors', () => {
  beforeEach(() => {
    html(`<main>
      <button id="checkout">Pay</button>
      <button id="ember1234">Generated id</button>
      <div data-testid="plan-card"><button class="btn">Choose</button></div>
      <nav><a class="nav-link css-1x2y3z active" href="/a">A</a><a class="nav-link" href="/b">B</a></nav>
      <ul><li>one</li><li>two</li><li><span>three</span></li></ul>
      <button class="user-jane@example.com">Odd</button>
      <p class="lead">Hello</p>
      <section class="feedback-panel a1b2c3d4"><span>Rate us</span></section>
      <footer><button class="btn">Other</button></footer>
    </main>`);
  });

  it('prefers a stable id', () => expect(selectorOf($('#checkout'))).toBe('#checkout'));

  it('prefers a test id to tag and classes', () => expect(selectorOf($('[data-testid="plan-card"]'))).toBe('[data-testid="plan-card"]'));

  it('skips generated ids and classes, uses meaningful ones', () => {
    expect(selectorOf($('p'))).toBe('p.lead');
    expect(selectorOf($('section'))).toBe('section.feedback-panel');
    expect(selectorOf(document.querySelectorAll('button')[1])).not.toContain('ember');
    const link = selectorOf($('a[href="/a"]'));
    expect(link).not.toMatch(/css-|active/);
    expect(document.querySelector(link)).toBe($('a[href="/a"]'));
  });

  it('anchors on an identifiable parent', () => {
    const sel = selectorOf($('[data-testid="plan-card"] button'));
    expect(sel).toBe('[data-testid="plan-card"] > button.btn');
  });

  it('falls back to :nth-of-type and always selects the element alone', () => {
    const li = document.querySelectorAll('li')[1];
    const sel = selectorOf(li);
    expect(sel).toContain(':nth-of-type(2)');
    expect(document.querySelectorAll(sel)).toHaveLength(1);
    expect(document.querySelector(sel)).toBe(li);
    const span = $('li span');
    expect(document.querySelector(selectorOf(span))).toBe(span);
  });

  it('never carries user data', () => {
    const sel = selectorOf($('button[class*="@"]'));
    expect(sel).not.toContain('jane');
    expect(sel).not.toContain('@');
  });
});

describe('redaction and labels', () => {
  it.each([
    ['Mail jane.doe+x@example.co.uk now', 'Mail [redacted] now'],
    ['See https://shop.example/orders?id=9 here', 'See [redacted] here'],
    ['Call +44 20 7946 0958', 'Call [redacted]'],
    ['Card 4111 1111 1111 1111 ok', 'Card [redacted] ok'],
    ['IBAN DE89 3704 0044 0532 0130 00', 'IBAN [redacted]'],
    ['Pay $12.50 for 3 items', 'Pay $12.50 for 3 items'],
  ])('%s', (input, output) => expect(redact(input)).toBe(output));

  it('cuts to 80 characters on one line', () => {
    const text = cleanText(`  ${'word '.repeat(40)}\n more`);
    expect(text.length).toBe(80);
    expect(text).not.toContain('\n');
  });

  it('labels from aria-label, labelled-by, text, title; fields from their label, never their value', () => {
    html(`<button id="a" aria-label="Close dialog">×</button>
      <span id="lbl">Billing email</span><button id="b" aria-labelledby="lbl"></button>
      <button id="c">  Send to  bob@example.com </button>
      <div id="d" title="Help"></div>
      <label for="e">Your phone</label><input id="e" value="+1 555 123 4567">
      <input id="f" type="submit" value="Sign up">
      <form id="g"><label>Name <input></label></form><form id="h" aria-label="Newsletter"></form>`);
    expect(labelOf($('#a'))).toBe('Close dialog');
    expect(labelOf($('#b'))).toBe('Billing email');
    expect(labelOf($('#c'))).toBe('Send to [redacted]');
    expect(labelOf($('#d'))).toBe('Help');
    expect(labelOf($('#e'))).toBe('Your phone');
    expect(labelOf($('#f'))).toBe('Sign up');
    expect(labelOf($('#g'))).toBe('');
    expect(labelOf($('#h'))).toBe('Newsletter');
  });

  it('never labels with typed text, page text, script source, hidden text or a non-button input value', () => {
    html(`<div id="ce" contenteditable="true">my secret draft</div><div contenteditable><p id="cep">typed note</p></div>
      <div id="card" role="button">Open<script>var token = "s3cret"</script><style>.x { color: red }</style><span style="display:none">internal</span></div>
      <div id="big" style="cursor: pointer">${'Private article text about the customer. '.repeat(5)}</div>
      <div id="holder" onclick="1">Reply <span contenteditable>typed reply</span></div>
      <input id="range" type="range" value="37"><input id="file" type="file"><input id="check" type="checkbox" value="newsletter-yes">
      <label for="vol">Volume</label><input id="vol" type="range" value="5">
      <input id="go" type="button" value="Go"><input id="clear" type="reset" value="Clear"><input id="pic" type="image" alt="Search">`);
    Object.defineProperty($('#file'), 'value', { value: 'C:\\fakepath\\passport.pdf' });
    expect(labelOf(document.body)).toBe('');
    expect(labelOf(document.documentElement)).toBe('');
    expect(labelOf($('#ce'))).toBe('');
    expect(labelOf($('#cep'))).toBe('');
    expect(labelOf($('#holder'))).toBe('');
    expect(labelOf($('#card'))).toBe('Open');
    expect(labelOf($('#big'))).toBe('');
    expect(labelOf($('#range'))).toBe('');
    expect(labelOf($('#file'))).toBe('');
    expect(labelOf($('#check'))).toBe('');
    expect(labelOf($('#vol'))).toBe('Volume');
    expect(labelOf($('#go'))).toBe('Go');
    expect(labelOf($('#clear'))).toBe('Clear');
    expect(labelOf($('#pic'))).toBe('Search');
  });
});

describe('ignore rules, disabled and interactive elements, positions', () => {
  it('ignores the attribute, the class and configured selectors, on the element or an ancestor', () => {
    html(`<div data-mallard-ignore><button id="a">A</button></div><button id="b" class="mallard-ignore">B</button>
      <div class="stepper"><button id="c">+</button></div><button id="d">D</button>`);
    expect(isIgnored($('#a'), [])).toBe(true);
    expect(isIgnored($('#b'), [])).toBe(true);
    expect(isIgnored($('#c'), ['.stepper'])).toBe(true);
    expect(isIgnored($('#c'), [])).toBe(false);
    expect(isIgnored($('#d'), ['.stepper', '::bad('])).toBe(false);
  });

  it('finds the disabled control a press was meant for', () => {
    html(`<button id="a" disabled><b id="inner">x</b></button><fieldset disabled><input id="b"></fieldset>
      <div role="button" aria-disabled="true" id="c">c</div><button id="d">d</button>`);
    expect(disabledControl($('#inner'), 0, 0)).toBe($('#a'));
    expect(disabledControl($('#b'), 0, 0)).toBe($('#b'));
    expect(disabledControl($('#c'), 0, 0)).toBe($('#c'));
    expect(disabledControl($('#d'), 0, 0)).toBeFalsy();
  });

  it('resolves the interactive element of a click, or whether it only looks clickable', () => {
    html(`<a href="/x" id="a"><span id="s">go</span></a><div id="p" style="cursor: pointer">card</div><p id="t">text</p>`);
    expect(clickTarget($('#s'), window)).toEqual({ el: $('#a'), interactive: true, looks: true });
    expect(clickTarget($('#p'), window)).toEqual({ el: $('#p'), interactive: false, looks: true });
    expect(clickTarget($('#t'), window)).toEqual({ el: $('#t'), interactive: false, looks: false });
  });

  it('positions in the element and the viewport, 0..1000, clamped', () => {
    html('<button id="a">a</button>');
    Object.assign(window, { innerWidth: 800, innerHeight: 600 });
    place($('#a'), 100, 50, 200, 100);
    expect(pointOf($('#a'), 150, 75, window)).toEqual({ hx: 250, hy: 250, vx: 188, vy: 125 });
    expect(pointOf($('#a'), 1000, 0, window)).toEqual({ hx: 1000, hy: 0, vx: 1000, vy: 0 });
  });
});
