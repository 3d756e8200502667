// What a store error says about the store: unreachable or out of space (store/store-faults.ts),
// and the answer the request path gives for each (app.ts toAppError).
import { describe, expect, it } from 'vitest';
import { toAppError } from '../src/app.ts';
import { EPISODE_QUIET_MS, StoreFaultEpisodes, storeFault, storeLocation } from '../src/store/store-faults.ts';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('storeFault', () => {
  it.each([
    ['57P01', 'unavailable'], ['57P03', 'unavailable'], ['08006', 'unavailable'], ['ECONNREFUSED', 'unavailable'], ['ECONNRESET', 'unavailable'],
    ['53100', 'storage_full'], ['SQLITE_FULL', 'storage_full'], ['ENOSPC', 'storage_full'],
    ['23505', null], ['SQLITE_CONSTRAINT_UNIQUE', null], ['SQLITE_BUSY', null],
  ])('code %s: %s', (code, fault) => {
    expect(storeFault(withCode(code))).toBe(fault);
  });

  it('reads pg\'s own messages for a connection that ended under a query', () => {
    expect(storeFault(new Error('Connection terminated unexpectedly'))).toBe('unavailable');
    expect(storeFault(new Error('syntax error at or near "selec"'))).toBeNull();
    expect(storeFault(null)).toBeNull();
    expect(storeFault('a string')).toBeNull();
  });

  it('answers 503 with a stable code, never internal_error', () => {
    expect(toAppError(withCode('57P01', 'terminating connection due to administrator command'))).toMatchObject({ code: 'unavailable', status: 503 });
    expect(toAppError(withCode('SQLITE_FULL', 'database or disk is full'))).toMatchObject({ code: 'storage_full', status: 503 });
    expect(toAppError(withCode('23505'))).toMatchObject({ code: 'internal_error', status: 500 });
  });
});

describe('StoreFaultEpisodes', () => {
  function watched() {
    let now = 1_000_000;
    const lines: string[] = [];
    const episodes = new StoreFaultEpisodes('db.example:5432/mallard', () => now);
    episodes.logTo({ warn: (_o, msg) => lines.push(`warn ${msg}`), info: (_o, msg) => lines.push(`info ${msg}`) });
    return { episodes, lines, advance: (ms: number) => { now += ms; } };
  }

  it('logs an episode once however many statements meet it, counts each, and ends it after a quiet moment', () => {
    const { episodes, lines, advance } = watched();
    for (let i = 0; i < 5; i++) expect(episodes.failed(withCode('57P01'))).toBe('unavailable');
    expect(episodes.counts.unavailable).toBe(5);
    expect(episodes.active()).toBe('unavailable');
    // A success right after a failure does not end it (the next pooled connection may still fail).
    episodes.succeeded(false);
    expect(episodes.active()).toBe('unavailable');
    advance(EPISODE_QUIET_MS);
    episodes.succeeded(false);
    expect(episodes.active()).toBeNull();
    expect(lines).toEqual([
      'warn store unreachable at db.example:5432/mallard: requests are answered 503 unavailable until it is back',
      'info store reachable again at db.example:5432/mallard',
    ]);
  });

  it('ends a full disk only with a write, counts an error seen twice once, and ignores the statement\'s own errors', () => {
    const { episodes, lines, advance } = watched();
    const full = withCode('SQLITE_FULL', 'database or disk is full');
    episodes.failed(full);
    episodes.failed(full);
    expect(episodes.counts.storage_full).toBe(1);
    expect(episodes.failed(withCode('23505'))).toBeNull();
    advance(EPISODE_QUIET_MS);
    episodes.succeeded(false);
    expect(episodes.active()).toBe('storage_full');
    episodes.succeeded(true);
    expect(episodes.active()).toBeNull();
    expect(lines).toHaveLength(2);
  });

  it('names where the store lives, never a password', () => {
    expect(storeLocation('postgres://mallard:s3cret@db.internal:6543/prod')).toBe('db.internal:6543/prod');
    expect(storeLocation('sqlite:./data/mallard.db')).toBe('./data/mallard.db');
  });
});
