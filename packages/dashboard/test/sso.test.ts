// The sign-in screen's single sign-on: the start URL it navigates to, the sentence for each
// code the server sends back in `sso_error`, and the connection form's domain list.
import { describe, expect, it } from 'vitest';
import { parseDomains, signInReturn, SSO_ERROR_CODES, ssoErrorMessage, ssoRequiredStart, ssoStartUrl, withReturn } from '../src/lib/sso.ts';

describe('single sign-on in the dashboard', () => {
  it('starts at the server with the address encoded', () => {
    expect(ssoStartUrl(' ana+ops@shop.example ')).toBe('/v1/auth/sso/start?email=ana%2Bops%40shop.example');
  });

  it('comes back to an OAuth consent screen it interrupted, and only to that', () => {
    const hash = '#/oauth/consent?uid=abc_DEF-123';
    expect(signInReturn(hash)).toBe('/app/#/oauth/consent?uid=abc_DEF-123');
    expect(signInReturn('#/issues')).toBeUndefined();
    expect(signInReturn('')).toBeUndefined();
    expect(signInReturn(`#/oauth/consent?uid=${'x'.repeat(600)}`)).toBeUndefined();
    expect(ssoStartUrl('ana@shop.example', '/app/#/oauth/consent?uid=u1')).toBe('/v1/auth/sso/start?email=ana%40shop.example&return_to=%2Fapp%2F%23%2Foauth%2Fconsent%3Fuid%3Du1');
    expect(withReturn('/v1/auth/sso/start?org=o1', '/app/#/oauth/consent?uid=u1')).toBe('/v1/auth/sso/start?org=o1&return_to=%2Fapp%2F%23%2Foauth%2Fconsent%3Fuid%3Du1');
    expect(withReturn('/v1/auth/sso/start?org=o1', undefined)).toBe('/v1/auth/sso/start?org=o1');
  });

  it('says each failure the server sends back in plain words, and something for an unknown one', () => {
    const codes = SSO_ERROR_CODES;
    expect(codes.length).toBeGreaterThan(5);
    const sentences = codes.map(ssoErrorMessage);
    expect(new Set(sentences).size).toBe(codes.length);
    for (const s of sentences) expect(s).not.toMatch(/sso_|_/);
    expect(ssoErrorMessage('something_new')).toBe('Single sign-on failed. Start again.');
  });

  it('reads domains one per line or comma-separated, lowercased, once each, without a leading @', () => {
    expect(parseDomains('Shop.example\n@eu.shop.example, shop.example  other.example;\n\n')).toEqual(['shop.example', 'eu.shop.example', 'other.example']);
    expect(parseDomains('   ')).toEqual([]);
  });

  it('follows a password sign-in refused with sso_required to the server\'s start URL only', () => {
    const start = '/v1/auth/sso/start?email=ana%40shop.example&org_id=0193';
    expect(ssoRequiredStart('sso_required', { start_url: start })).toBe(start);
    expect(ssoRequiredStart('sso_required', { start_url: 'https://evil.example/v1/auth/sso/start?x' })).toBeNull();
    expect(ssoRequiredStart('sso_required', {})).toBeNull();
    expect(ssoRequiredStart('invalid_credentials', { start_url: start })).toBeNull();
  });
});
