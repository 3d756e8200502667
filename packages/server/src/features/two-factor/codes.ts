// The pure part of two-factor sign-in: TOTP secrets, otpauth URLs and codes (RFC 6238 through
// otplib: SHA-1, 6 digits, 30-second steps, what every authenticator app uses), and recovery
// codes. Nothing here reads the store or the clock: the time is passed in, and what was
// accepted (the time step) is returned so the caller can refuse it next time.
import { randomInt } from 'node:crypto';
import { generateSecret, generateURI, verifySync } from 'otplib';

export const TOTP_ISSUER = 'Mallard';
export const TOTP_PERIOD_SECONDS = 30;
/** Clock drift accepted: one time step either side of the server's. */
export const TOTP_DRIFT_STEPS = 1;
export const RECOVERY_CODE_COUNT = 10;

/** A new authenticator secret: 20 random bytes in base32 (what authenticator apps expect). */
export const newTotpSecret = (): string => generateSecret();

/** The otpauth:// URL an authenticator app scans: issuer Mallard, the account named by the user's email. */
export const otpauthUrl = (secret: string, email: string): string => generateURI({ issuer: TOTP_ISSUER, label: email, secret });

/** A one-time code as typed: a 6-digit TOTP code (spaces allowed) or a recovery code (any case, spaces and hyphens allowed). */
export type OneTimeCode = { kind: 'totp'; code: string } | { kind: 'recovery'; code: string } | { kind: 'malformed' };

// No 0/o, 1/l/i: a code copied from paper is read back unambiguously.
const RECOVERY_ALPHABET = '23456789abcdefghjkmnpqrstuvwxyz';
const RECOVERY_PATTERN = new RegExp(`^[${RECOVERY_ALPHABET}]{8}$`);

export function parseOneTimeCode(input: string): OneTimeCode {
  const compact = input.replace(/\s+/g, '');
  if (/^\d{6}$/.test(compact)) return { kind: 'totp', code: compact };
  const letters = compact.replace(/-/g, '').toLowerCase();
  if (RECOVERY_PATTERN.test(letters)) return { kind: 'recovery', code: `${letters.slice(0, 4)}-${letters.slice(4)}` };
  return { kind: 'malformed' };
}

/**
 * The time step a 6-digit code was made for, if it is valid at `nowMs` within the accepted drift
 * and later than `lastStep` (a step already accepted is a replay); otherwise null.
 */
export function acceptTotp(secret: string, code: string, nowMs: number, lastStep: number | null): number | null {
  let result;
  try {
    result = verifySync({
      secret, token: code, epoch: Math.floor(nowMs / 1000), period: TOTP_PERIOD_SECONDS,
      epochTolerance: TOTP_DRIFT_STEPS * TOTP_PERIOD_SECONDS,
    });
  } catch {
    return null; // a malformed code or secret: simply not valid
  }
  if (!result.valid || !('timeStep' in result)) return null;
  if (lastStep !== null && result.timeStep <= lastStep) return null;
  return result.timeStep;
}

/** `count` new recovery codes, `xxxx-xxxx` from a 31-character alphabet (about 40 bits each). */
export function newRecoveryCodes(count = RECOVERY_CODE_COUNT): string[] {
  return Array.from({ length: count }, () => {
    let code = '';
    for (let i = 0; i < 8; i++) code += RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)];
    return `${code.slice(0, 4)}-${code.slice(4)}`;
  });
}

/** What is HMACed for a recovery code: its canonical form with a label, so the hash is of no use as any other token's. */
export const recoveryCodeMessage = (canonical: string) => `recovery-code:${canonical}`;
