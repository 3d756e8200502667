// domain/validation-error.ts's firstFailure and checkFailure: the field a compiled TypeBox check
// names (dotted, under the part checked) and the 400 invalid_input it becomes.
import { Type } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { describe, expect, it } from 'vitest';
import { checkFailure, firstFailure } from '../src/domain/validation-error.ts';

const check = TypeCompiler.Compile(Type.Object({ meta: Type.Object({ ua: Type.String() }), n: Type.Integer() }));

describe('firstFailure', () => {
  it('names a nested field as a dotted path, bare for the body and under any other part', () => {
    expect(firstFailure(check, { meta: { ua: 1 }, n: 1 })).toMatchObject({ field: 'meta.ua' });
    expect(firstFailure(check, { meta: { ua: 1 }, n: 1 }, 'config')).toMatchObject({ field: 'config.meta.ua' });
  });

  it('names the part itself when the value as a whole fails', () => {
    expect(firstFailure(check, 'text')).toMatchObject({ field: 'body' });
    expect(firstFailure(check, 'text', 'config')).toMatchObject({ field: 'config' });
  });

  it('gives the reason of the first failure', () => {
    const { reason } = firstFailure(check, { meta: { ua: 'x' }, n: 'one' });
    expect(reason).toMatch(/integer/i);
  });
});

describe('checkFailure', () => {
  it('is a 400 invalid_input naming the field, with the note after the reason', () => {
    const error = checkFailure(check, { meta: { ua: 'x' }, n: 1.5 }, 'config', ' (see the docs)');
    expect(error.code).toBe('invalid_input');
    expect(error.details).toEqual({ field: 'config.n', reason: expect.stringMatching(/ \(see the docs\)$/) });
    expect(error.message).toBe(`config.n: ${(error.details as { reason: string }).reason}`);
  });
});
