// The pure part of two-factor sign-in (features/two-factor/codes.ts): RFC 6238 codes accepted
// within one step of drift and never for a step already used, typed codes normalised, and
// recovery codes well formed, distinct and read back in any case or spacing.
import { generateSync } from 'otplib';
import { describe, expect, it } from 'vitest';
import { acceptTotp, newRecoveryCodes, newTotpSecret, otpauthUrl, parseOneTimeCode, RECOVERY_CODE_COUNT } from '../src/features/two-factor/codes.ts';

// RFC 6238 appendix B's SHA-1 seed ("12345678901234567890") in base32; its 8-digit vectors end in these 6 digits.
const RFC_SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
const T = 1_111_111_109_000; // RFC 6238 test time 1111111109 s: code 07081804 -> 081804 (and 1234567890 s: 89005924)

describe('TOTP codes', () => {
  it('accepts the RFC 6238 test vector and answers its time step', () => {
    expect(acceptTotp(RFC_SECRET, '081804', T, null)).toBe(Math.floor(1111111109 / 30));
    expect(acceptTotp(RFC_SECRET, '005924', 1_234_567_890_000, null)).toBe(Math.floor(1234567890 / 30));
  });

  it('accepts one step of drift either way, not two', () => {
    const secret = newTotpSecret();
    const now = 1_800_000_000_000;
    const code = (ms: number) => generateSync({ secret, epoch: Math.floor(ms / 1000) });
    const step = Math.floor(now / 30_000);
    expect(acceptTotp(secret, code(now), now, null)).toBe(step);
    expect(acceptTotp(secret, code(now - 30_000), now, null)).toBe(step - 1);
    expect(acceptTotp(secret, code(now + 30_000), now, null)).toBe(step + 1);
    expect(acceptTotp(secret, code(now - 60_000), now, null)).toBeNull();
    expect(acceptTotp(secret, code(now + 60_000), now, null)).toBeNull();
  });

  it('refuses a step at or before the last accepted one (a replay), accepts a later one', () => {
    const secret = newTotpSecret();
    const now = 1_800_000_000_000;
    const step = Math.floor(now / 30_000);
    const current = generateSync({ secret, epoch: now / 1000 });
    expect(acceptTotp(secret, current, now, step)).toBeNull();
    expect(acceptTotp(secret, current, now, step + 1)).toBeNull();
    expect(acceptTotp(secret, current, now, step - 1)).toBe(step);
    // A previous step's code after the current step was used: refused although within drift.
    expect(acceptTotp(secret, generateSync({ secret, epoch: now / 1000 - 30 }), now, step)).toBeNull();
  });

  it('refuses a wrong code and never throws on malformed input or a bad secret', () => {
    const secret = newTotpSecret();
    const now = 1_800_000_000_000;
    const right = generateSync({ secret, epoch: now / 1000 });
    const wrong = String((Number(right) + 1) % 1_000_000).padStart(6, '0');
    expect(acceptTotp(secret, wrong, now, null)).toBeNull();
    for (const bad of ['', '12345', '1234567', 'abcdef']) expect(acceptTotp(secret, bad, now, null)).toBeNull();
    expect(acceptTotp('not base32 !', right, now, null)).toBeNull();
  });

  it('makes 160-bit base32 secrets and an otpauth URL naming Mallard and the account', () => {
    const secret = newTotpSecret();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(newTotpSecret()).not.toBe(secret);
    const url = new URL(otpauthUrl(secret, 'ann+2fa@shop.example'));
    expect(url.protocol).toBe('otpauth:');
    expect(url.host).toBe('totp');
    expect(decodeURIComponent(url.pathname)).toBe('/Mallard:ann+2fa@shop.example');
    expect(url.searchParams.get('secret')).toBe(secret);
    expect(url.searchParams.get('issuer')).toBe('Mallard');
  });
});

describe('typed codes', () => {
  it('reads 6 digits with spaces as a TOTP code', () => {
    expect(parseOneTimeCode('123456')).toEqual({ kind: 'totp', code: '123456' });
    expect(parseOneTimeCode(' 123 456 ')).toEqual({ kind: 'totp', code: '123456' });
  });

  it('reads a recovery code in any case, with or without its hyphen and spaces', () => {
    for (const typed of ['abcd-ef23', 'ABCD-EF23', 'abcdef23', ' abcd ef23 ', 'AbCd-Ef23']) {
      expect(parseOneTimeCode(typed)).toEqual({ kind: 'recovery', code: 'abcd-ef23' });
    }
  });

  it('calls anything else malformed', () => {
    for (const typed of ['', '12345', '1234567', 'abcd-ef2', 'abcd-ef231', 'abcd-ef0l', '12-34-56x']) {
      expect(parseOneTimeCode(typed)).toEqual({ kind: 'malformed' });
    }
  });
});

describe('recovery codes', () => {
  it('makes ten distinct xxxx-xxxx codes from the unambiguous alphabet, each read back as itself', () => {
    const codes = newRecoveryCodes();
    expect(codes).toHaveLength(RECOVERY_CODE_COUNT);
    expect(new Set(codes).size).toBe(RECOVERY_CODE_COUNT);
    for (const code of codes) {
      expect(code).toMatch(/^[2-9a-hjkmnp-z]{4}-[2-9a-hjkmnp-z]{4}$/);
      expect(parseOneTimeCode(code)).toEqual({ kind: 'recovery', code });
      expect(parseOneTimeCode(code.toUpperCase())).toEqual({ kind: 'recovery', code });
    }
  });
});
