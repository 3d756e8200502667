// User sessions are HS256 JWTs: subject the user, `org` the org, `jti` for logout.
import { SignJWT, jwtVerify } from 'jose';
import { v7 as uuidv7 } from 'uuid';
import type { Secrets } from './secrets.ts';

export const JWT_MIN_SECONDS = 15 * 60;
export const JWT_MAX_SECONDS = 24 * 60 * 60;
export const JWT_DEFAULT_SECONDS = 8 * 60 * 60;
const ISSUER = 'mallard';

export interface UserClaims { userId: string; orgId: string; jti: string; expiresAt: number; /** Seconds since the epoch. */ issuedAt: number }

export async function signUserToken(secrets: Secrets, userId: string, orgId: string, nowMs: number, ttlSeconds: number) {
  const jti = uuidv7();
  const iat = Math.floor(nowMs / 1000);
  const exp = iat + ttlSeconds;
  const token = await new SignJWT({ org: orgId })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(ISSUER)
    .setSubject(userId)
    .setJti(jti)
    .setIssuedAt(iat)
    .setExpirationTime(exp)
    .sign(secrets.key('jwt'));
  return { token, jti, expiresAt: exp * 1000 };
}

/**
 * Returns the claims, or null for any token that is malformed, forged or expired. A token
 * signed with the current secret or, during a rotation, the previous one verifies.
 */
export async function verifyUserToken(secrets: Secrets, token: string, nowMs: number): Promise<UserClaims | null> {
  for (const key of secrets.keys('jwt')) {
    const claims = await verifyWith(key, token, nowMs);
    if (claims) return claims;
  }
  return null;
}

async function verifyWith(key: Uint8Array, token: string, nowMs: number): Promise<UserClaims | null> {
  try {
    const { payload } = await jwtVerify(token, key, {
      algorithms: ['HS256'],
      issuer: ISSUER,
      currentDate: new Date(nowMs),
    });
    if (typeof payload.sub !== 'string' || typeof payload.org !== 'string' || typeof payload.jti !== 'string' || typeof payload.exp !== 'number' || typeof payload.iat !== 'number') return null;
    return { userId: payload.sub, orgId: payload.org, jti: payload.jti, expiresAt: payload.exp * 1000, issuedAt: payload.iat };
  } catch {
    return null;
  }
}
