// The pure rules of clips (domain/clips.ts): which budget stops an upload, the UTC day, how long
// clips are kept; and the device class uploads are filed under (ingest/session.ts).
import { describe, expect, it } from 'vitest';
import { clipRefusal, effectiveClipRetentionDays, utcDayStart, type ClipDay } from '../src/domain/clips.ts';
import { deviceClass } from '../src/ingest/session.ts';
import { IPHONE_UA } from './helpers/clip-kit.ts';
import { CHROME_WINDOWS_UA } from './helpers/ingest-kit.ts';

const day = (over: Partial<ClipDay> = {}): ClipDay => ({ bytes: 0, budget: 1000, elementClips: new Map(), snapshotTaken: false, ...over });

describe('clipRefusal', () => {
  it.each([
    ['a clip within every budget', 'clip', 100, ['#a'], day(), null],
    ['a clip exactly filling the budget', 'clip', 100, ['#a'], day({ bytes: 900 }), null],
    ['a clip one byte over the budget', 'clip', 101, ['#a'], day({ bytes: 900 }), 'budget'],
    ['a clip on a spent budget', 'clip', 1, ['#a'], day({ bytes: 1000 }), 'budget'],
    ['a clip on an element with 4 today', 'clip', 1, ['#a'], day({ elementClips: new Map([['#a', 4]]) }), null],
    ['a clip on an element with 5 today', 'clip', 1, ['#a'], day({ elementClips: new Map([['#a', 5]]) }), 'element_cap'],
    ['a clip on a full and a wanted element', 'clip', 1, ['#a', '#b'], day({ elementClips: new Map([['#a', 5]]) }), null],
    ['a clip on full elements only', 'clip', 1, ['#a', '#b'], day({ elementClips: new Map([['#a', 5], ['#b', 7]]) }), 'element_cap'],
    ['a clip of a signal on no element, beside a full one', 'clip', 1, ['#a', ''], day({ elementClips: new Map([['#a', 5]]) }), null],
    ['the cap before the budget', 'clip', 5000, ['#a'], day({ elementClips: new Map([['#a', 5]]) }), 'element_cap'],
    ['a first snapshot', 'snapshot', 10, [], day(), null],
    ['a second snapshot', 'snapshot', 10, [], day({ snapshotTaken: true }), 'snapshot_exists'],
    ['a snapshot over the budget', 'snapshot', 2000, [], day(), 'budget'],
    ['anything on a budget of 0', 'snapshot', 1, [], day({ budget: 0 }), 'budget'],
  ] as const)('%s', (_label, kind, bytes, elements, state, expected) => {
    expect(clipRefusal(kind, bytes, elements, state)).toBe(expected);
  });
});

describe('days and retention', () => {
  it('counts the day from UTC midnight', () => {
    expect(utcDayStart(Date.UTC(2026, 10, 2, 23, 59, 59, 999))).toBe(Date.UTC(2026, 10, 2));
    expect(utcDayStart(Date.UTC(2026, 10, 3))).toBe(Date.UTC(2026, 10, 3));
  });

  it('keeps clips for the clip retention, never longer than the raw data', () => {
    expect(effectiveClipRetentionDays(30, null, 90)).toBe(30);
    expect(effectiveClipRetentionDays(60, 10, 90)).toBe(10);
    expect(effectiveClipRetentionDays(200, null, 90)).toBe(90);
  });

  it('files uploads as desktop, tablet or mobile', () => {
    expect(deviceClass(CHROME_WINDOWS_UA)).toBe('desktop');
    expect(deviceClass(IPHONE_UA)).toBe('mobile');
    expect(deviceClass('Mozilla/5.0 (iPad; CPU OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1')).toBe('tablet');
    expect(deviceClass(null)).toBe('desktop');
    expect(deviceClass('Mozilla/5.0 (SMART-TV; Linux; Tizen 6.0) AppleWebKit/537.36 SamsungBrowser/4.0 TV Safari/537.36')).toBe('desktop');
  });
});
