// How the OAuth authorization server's records are keyed: by an HMAC of the record's id, never
// the id itself, because an access token's, a refresh token's and a code's id is the token.
import type { Secrets } from './secrets.ts';

/** oidc-provider's opaque tokens: 256 random bits as 43 base64url characters (no prefix, no dots). */
export const OAUTH_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export const isOAuthToken = (token: string) => OAUTH_TOKEN_PATTERN.test(token);

/** The id's HMAC under every secret of the keyring, current first: what a stored id_hash may be. */
export function oauthIdHashes(secrets: Secrets, model: string, id: string): string[] {
  return secrets.hmacs('oauth-record', `${model}:${id}`);
}

export function oauthIdHash(secrets: Secrets, model: string, id: string): string {
  return secrets.hmac('oauth-record', `${model}:${id}`);
}
