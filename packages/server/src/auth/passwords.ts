// scrypt password hashes, self-describing: scrypt$N$r$p$salt$hash (base64url).
import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const scrypt = (password: string, salt: Buffer, length: number, options: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) =>
    scryptCb(password, salt, length, options, (err, key) => (err ? reject(err) : resolve(key))));

const N = 16384;
const R = 8;
const P = 1;
const LENGTH = 32;

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 256;

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(password, salt, LENGTH, { N, r: R, p: P, maxmem: 64 * 1024 * 1024 });
  return ['scrypt', N, R, P, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  // With no stored hash, still spend the time so a missing user takes as long as a wrong password.
  const [kind, n, r, p, salt, hash] = (stored ?? `scrypt$${N}$${R}$${P}$AAAAAAAAAAAAAAAAAAAAAA$`).split('$');
  if (kind !== 'scrypt') return false;
  const expected = Buffer.from(hash ?? '', 'base64url');
  const actual = await scrypt(password, Buffer.from(salt, 'base64url'), expected.length || LENGTH, {
    N: Number(n), r: Number(r), p: Number(p), maxmem: 64 * 1024 * 1024,
  });
  return stored !== null && expected.length === actual.length && timingSafeEqual(expected, actual);
}
