// Two-factor sign-in in the dashboard, the parts that need no DOM: the QR code the server sends
// as SVG text turned into shapes to draw (no markup from the network is ever put into the
// page, and no image is needed), what a typed
// code looks like, and the sentences for the server's codes.

export interface QrShape { viewBox: string; paths: { d: string; fill?: string; stroke?: string }[] }

const COLOR = /^#[0-9a-fA-F]{3,8}$/;
const PATH_DATA = /^[MmHhVvZzLl0-9 .,-]+$/;

/**
 * The viewBox and paths of the `qrcode` package's SVG (a white background path and a black
 * stroked path). Only path data and plain colours are kept; anything else is refused (null).
 */
export function qrShape(svg: string): QrShape | null {
  const viewBox = /^<svg [^>]*viewBox="([0-9 .]+)"/.exec(svg.trim())?.[1];
  if (!viewBox) return null;
  const paths: QrShape['paths'] = [];
  for (const match of svg.matchAll(/<path ([^>]*?)\/?>/g)) {
    const attrs = Object.fromEntries([...match[1].matchAll(/([a-z-]+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (!attrs.d || !PATH_DATA.test(attrs.d)) return null;
    if ((attrs.fill && !COLOR.test(attrs.fill)) || (attrs.stroke && !COLOR.test(attrs.stroke))) return null;
    paths.push({ d: attrs.d, ...(attrs.fill ? { fill: attrs.fill } : {}), ...(attrs.stroke ? { stroke: attrs.stroke } : {}) });
  }
  return paths.length > 0 ? { viewBox, paths } : null;
}

/** The secret in groups of four, as authenticator apps show it, for typing by hand. */
export const groupSecret = (secret: string) => secret.replace(/(.{4})(?=.)/g, '$1 ');

/** Whether a typed authenticator code is complete: six digits, spaces allowed. */
export const isTotpCode = (typed: string) => /^\d{6}$/.test(typed.replace(/\s+/g, ''));

/** Whether a typed recovery code is complete: eight letters or digits, with or without its hyphen. */
export const isRecoveryCode = (typed: string) => /^[a-z0-9]{8}$/i.test(typed.replace(/[\s-]+/g, ''));

/** Recovery codes as text to copy or keep: one per line. */
export const recoveryCodesText = (codes: string[]) => codes.join('\n');

export const REQUIRE_2FA_LABELS = {
  off: 'Nobody (each person chooses)',
  admins: 'Admins and owners',
  everyone: 'Everyone in the org',
} as const;

/** A sentence for what the server answered a code, or null for anything else. */
export function codeProblem(code: string): string | null {
  if (code === 'invalid_otp') return 'That code is not right, was already used or has expired. Wait for the next code in your app and try again.';
  if (code === 'invalid_input') return 'That code (or password) is not right. Check it and try again.';
  if (code === 'account_locked') return 'Too many wrong attempts for this account. Wait until the time shown, or ask an admin to unlock it.';
  if (code === 'mfa_required_by_org') return 'Your organisation requires two-factor sign-in, so it cannot be turned off.';
  return null;
}
