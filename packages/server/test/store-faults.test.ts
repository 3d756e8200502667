// What a store error says about the store: unreachable or out of space (store/store-faults.ts),
// and the answer the request path gives for each (app.ts toAppError).
import { describe, expect, it } from 'vitest';
import { toAppError } from '../src/app.ts';
import { storeFault } from '../src/store/store-faults.ts';

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
