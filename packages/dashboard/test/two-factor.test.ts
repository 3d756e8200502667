// Two-factor sign-in in the dashboard: the server's QR code turned into shapes (never markup),
// typed codes recognised, sentences for the server's codes.
import { describe, expect, it } from 'vitest';
import { codeProblem, groupSecret, isRecoveryCode, isTotpCode, qrShape, recoveryCodesText } from '../src/lib/two-factor.ts';

// What the server's `qrcode` package writes (shortened path data).
const SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 37 37" shape-rendering="crispEdges"><path fill="#ffffff" d="M0 0h37v37H0z"/><path stroke="#000000" d="M2 2.5h7m1 0h1M2 3.5h1"/></svg>\n';

describe('two-factor in the dashboard', () => {
  it('keeps the QR code\'s viewBox, path data and colours', () => {
    expect(qrShape(SVG)).toEqual({
      viewBox: '0 0 37 37',
      paths: [{ d: 'M0 0h37v37H0z', fill: '#ffffff' }, { d: 'M2 2.5h7m1 0h1M2 3.5h1', stroke: '#000000' }],
    });
  });

  it('refuses anything but plain paths: script, event handlers, URLs in colours, no paths at all', () => {
    expect(qrShape('<svg viewBox="0 0 1 1"><path d="M0 0h1" onload="alert(1)" fill="url(javascript:x)"/></svg>')).toBeNull();
    expect(qrShape('<svg viewBox="0 0 1 1"><path d="M0 0h1 <script>"/></svg>')).toBeNull();
    expect(qrShape('<svg viewBox="0 0 1 1"></svg>')).toBeNull();
    expect(qrShape('<div>not svg</div>')).toBeNull();
  });

  it('groups the secret in fours for typing by hand', () => {
    expect(groupSecret('ABCDEFGHIJKLMNOP')).toBe('ABCD EFGH IJKL MNOP');
    expect(groupSecret('ABCDEF')).toBe('ABCD EF');
  });

  it('recognises a complete authenticator code and a recovery code as typed', () => {
    expect(isTotpCode('123456')).toBe(true);
    expect(isTotpCode('123 456')).toBe(true);
    expect(isTotpCode('12345')).toBe(false);
    expect(isTotpCode('abcdef')).toBe(false);
    expect(isRecoveryCode('abcd-ef23')).toBe(true);
    expect(isRecoveryCode('ABCDEF23')).toBe(true);
    expect(isRecoveryCode('abcd-ef2')).toBe(false);
  });

  it('copies recovery codes one per line, and says the server\'s code problems in words', () => {
    expect(recoveryCodesText(['aaaa-bbbb', 'cccc-dddd'])).toBe('aaaa-bbbb\ncccc-dddd');
    for (const code of ['invalid_otp', 'invalid_input', 'account_locked', 'mfa_required_by_org']) {
      expect(codeProblem(code)).toMatch(/^[A-Z][^_]+\.$/);
    }
    expect(codeProblem('not_found')).toBeNull();
  });
});
