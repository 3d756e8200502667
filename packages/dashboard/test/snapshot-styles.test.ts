// The recording's CSS lifted out before it is rebuilt under the dashboard's CSP, and scripts
// and inline handlers left out.
import { describe, expect, it } from 'vitest';
import { liftEvents, liftStyles, type SerializedNode } from '../src/lib/snapshot-styles.ts';

const el = (id: number, tagName: string, attributes: Record<string, unknown> = {}, childNodes: SerializedNode[] = []): SerializedNode => ({ type: 2, id, tagName, attributes, childNodes });
const text = (id: number, textContent: string, isStyle?: boolean): SerializedNode => ({ type: 3, id, textContent, ...(isStyle ? { isStyle } : {}) });

describe('lifting a snapshot\'s CSS', () => {
  const doc: SerializedNode = { type: 0, id: 1, childNodes: [el(2, 'html', {}, [
    el(3, 'head', {}, [el(4, 'style', { _cssText: 'a { color: red; }/* rr_split */b { color: blue; }' }, [text(5, '', true)]), el(6, 'link', { rel: 'stylesheet', href: 'https://shop.example/s.css', _cssText: 'p { margin: 0; }' })]),
    el(7, 'body', { onload: 'steal()' }, [
      el(8, 'p', { style: 'color: green', class: 'x' }, [text(9, '***')]),
      el(10, 'script', {}, [text(11, 'window.__planted = 1')]),
      el(12, 'img', { src: 'x', onerror: 'steal()' }),
      el(13, 'style', {}, [text(14, 'h1 { font-size: 2em; }', true)]),
    ]),
  ])] };

  it('takes sheets (style text, _cssText, inlined links) and style attributes out, by element id', () => {
    const { sheets, inline } = { sheets: new Map<number, string>(), inline: new Map<number, string>() };
    const out = liftStyles(doc, { sheets, inline });
    expect([...sheets]).toEqual([[4, 'a { color: red; }b { color: blue; }'], [6, 'p { margin: 0; }'], [13, 'h1 { font-size: 2em; }']]);
    expect([...inline]).toEqual([[8, 'color: green']]);
    const json = JSON.stringify(out);
    expect(json).not.toMatch(/color: red|color: green|_cssText|shop\.example/);
    expect(json).toContain('"class":"x"');
    // Where a sheet was, an inert <template> keeps the id (an empty <style> would still be refused by the CSP).
    expect(json.match(/"tagName":"template"/g)).toHaveLength(3);
    expect(json).not.toContain('"tagName":"style"');
  });

  it('leaves scripts and on… attributes out of the rebuilt page', () => {
    const json = JSON.stringify(liftStyles(doc));
    expect(json).not.toMatch(/script|__planted|onload|onerror|steal/);
    expect(json).toContain('"src":"x"');
  });

  it('lifts the CSS of added nodes and string style mutations in a clip\'s events, per event', () => {
    const events = [
      { type: 4, timestamp: 1, data: { width: 100, height: 100 } },
      { type: 2, timestamp: 1, data: { node: doc } },
      { type: 3, timestamp: 2, data: { source: 0, adds: [{ parentId: 7, nextId: null, node: el(20, 'div', { style: 'top: 3px' }) }], attributes: [{ id: 8, attributes: { style: 'color: black', class: 'y', onclick: 'x()' } }], removes: [], texts: [] } },
      { type: 3, timestamp: 3, data: { source: 0, adds: [], attributes: [{ id: 8, attributes: { style: { color: 'blue' } } }], removes: [], texts: [] } },
    ];
    const lifted = liftEvents(events);
    expect(lifted.events[0]).toBe(events[0]);
    expect(lifted.styles.get(lifted.events[1])?.sheets.size).toBe(3);
    const mutation = lifted.styles.get(lifted.events[2]);
    expect([...(mutation?.inline ?? [])]).toEqual([[20, 'top: 3px'], [8, 'color: black']]);
    expect(JSON.stringify(lifted.events[2])).not.toMatch(/top: 3px|color: black|onclick/);
    // An object style is applied by the player through the CSSOM already: left as it is.
    expect(lifted.styles.has(lifted.events[3])).toBe(false);
    expect(JSON.stringify(lifted.events[3])).toContain('"color":"blue"');
  });
});
