// Numbers for people: money from cents in one helper, priorities labelled, windows in words,
// the SDK snippet, and the issues list's filters as the API's parameters.
import { describe, expect, it } from 'vitest';
import { bytes, installSnippet, money, moneyPerMonth, priorityLabel, spanLength } from '../src/lib/format.ts';
import { issueListQuery, patchEach } from '../src/lib/issue-query.ts';

describe('money', () => {
  it('turns cents into whole currency units', () => {
    expect(money(716_700, 'USD', 'en-US')).toBe('$7,167');
    expect(money(123_449, 'USD', 'en-US')).toBe('$1,234');
    expect(money(123_450, 'USD', 'en-US')).toBe('$1,235');
    expect(money(0, 'USD', 'en-US')).toBe('$0');
    expect(money(52_500, 'EUR', 'en-US')).toBe('€525');
  });

  it('writes out a currency code the browser does not know, and a dash for no amount', () => {
    expect(money(716_700, 'not-a-code', 'en-US')).toBe('7,167 not-a-code');
    expect(money(null)).toBe('–');
    expect(money(Number.NaN)).toBe('–');
  });

  it('gives money a month with its unit, and says when it is not estimated', () => {
    expect(moneyPerMonth(716_700, 'USD', 'en-US')).toBe('$7,167/mo');
    expect(moneyPerMonth(null)).toBe('not estimated');
  });
});

describe('bytes', () => {
  it('counts in 1,024s, one decimal below 10 of a unit, none for bytes', () => {
    expect(bytes(0)).toBe('0 B');
    expect(bytes(812)).toBe('812 B');
    expect(bytes(4300)).toBe('4.2 KB');
    expect(bytes(52_428_800)).toBe('50 MB');
    expect(bytes(1536 * 1024 * 1024)).toBe('1.5 GB');
    expect(bytes(null)).toBe('–');
  });
});

describe('labels', () => {
  it('labels a priority with its scale', () => {
    expect(priorityLabel(49.8)).toBe('priority 49.8 of 100');
    expect(priorityLabel(62)).toBe('priority 62.0 of 100');
  });

  it('says how long a window is in words', () => {
    expect(spanLength(15 * 60_000)).toBe('15 minutes');
    expect(spanLength(60_000)).toBe('1 minute');
    expect(spanLength(3_600_000)).toBe('1 hour');
    expect(spanLength(11 * 3_600_000)).toBe('11 hours');
    expect(spanLength(2 * 3_600_000 + 15 * 60_000)).toBe('2 h 15 min');
    expect(spanLength(24 * 3_600_000)).toBe('24 hours');
    expect(spanLength(7 * 86_400_000)).toBe('7 days');
    expect(spanLength(50 * 3_600_000)).toBe('50 hours');
    expect(spanLength(0)).toBe('–');
  });

  it('writes the SDK snippet for this server', () => {
    expect(installSnippet('https://mallard.example')).toBe('<script async src="https://mallard.example/sdk.js" data-key="svc_pub_..."></script>');
  });
});

describe('the issues list query', () => {
  it('asks for every unresolved status by default, in the server\'s order', () => {
    expect(issueListQuery({ status: 'attention' })).toEqual({ attention: true, status: undefined, severity: undefined, page: undefined, type: undefined, sort: undefined, q: undefined, assigned_to: undefined });
    expect(issueListQuery({ status: 'attention', sort: 'priority' }).sort).toBeUndefined();
  });

  it('sends one status exactly, or none for any', () => {
    expect(issueListQuery({ status: 'open' })).toMatchObject({ attention: undefined, status: 'open' });
    expect(issueListQuery({ status: 'any' })).toMatchObject({ attention: undefined, status: undefined });
  });

  it('sends the filters and the sort to the server', () => {
    expect(issueListQuery({ status: 'attention', severity: 'high', page: '/checkout', type: 'rage_click', sort: 'revenue' }))
      .toEqual({ attention: true, status: undefined, severity: 'high', page: '/checkout', type: 'rage_click', sort: 'revenue', q: undefined, assigned_to: undefined });
    expect(issueListQuery({ status: 'attention', sort: 'bogus' }).sort).toBeUndefined();
  });

  it('sends a trimmed search and the assignee, and nothing for empty ones', () => {
    expect(issueListQuery({ status: 'any', q: '  pay button ', assigned_to: 'dana@shop.example' })).toMatchObject({ q: 'pay button', assigned_to: 'dana@shop.example' });
    expect(issueListQuery({ status: 'any', q: '   ', assigned_to: '' })).toMatchObject({ q: undefined, assigned_to: undefined });
  });
});

describe('bulk changes', () => {
  it('patches every selected issue and reports which failed, in order', async () => {
    const calls: string[] = [];
    const result = await patchEach(['a', 'b', 'c'], async (id) => {
      calls.push(id);
      if (id === 'b') throw new Error('refused');
    });
    expect(calls).toEqual(['a', 'b', 'c']);
    expect(result.done).toEqual(['a', 'c']);
    expect(result.failed.map((f) => f.id)).toEqual(['b']);
  });
});
