// Two-factor sign-in for tests: codes computed with otplib as an authenticator app would, at the
// harness's clock, and an account enrolled through the public routes.
import { generateSync } from 'otplib';
import { expect } from 'vitest';
import type { App } from '../../src/http/app-types.ts';

/** The 6-digit code an authenticator app shows for `secret` at `nowMs`. */
export const totpAt = (secret: string, nowMs: number) => generateSync({ secret, epoch: Math.floor(nowMs / 1000) });

export interface Enrolled { secret: string; otpauthUrl: string; recoveryCodes: string[] }

/** Enrols the token's user (setup, then enable with the current code); the enabling code's time step is then used up. */
export async function enrolTotp(app: App, headers: Record<string, string>, nowMs: number): Promise<Enrolled> {
  const setup = await app.inject({ method: 'POST', url: '/v1/auth/2fa/setup', headers });
  expect(setup.statusCode, setup.body).toBe(200);
  const { secret, otpauth_url: otpauthUrl } = setup.json().data as { secret: string; otpauth_url: string };
  const enabled = await app.inject({ method: 'POST', url: '/v1/auth/2fa/enable', headers, payload: { code: totpAt(secret, nowMs) } });
  expect(enabled.statusCode, enabled.body).toBe(200);
  return { secret, otpauthUrl, recoveryCodes: enabled.json().data.recovery_codes as string[] };
}
