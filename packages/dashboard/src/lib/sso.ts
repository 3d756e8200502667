// Single sign-on in the dashboard: where the browser goes to start it, what a failed one's
// `sso_error` (the server sends the browser back to #/sign-in?sso_error=<code>) means in plain
// words, and the connection form's domain list.

/** The server's sign-in start: a navigation (it answers 302 to the provider), never a fetch. */
export function ssoStartUrl(email: string, returnTo?: string): string {
  return `/v1/auth/sso/start?${new URLSearchParams({ email: email.trim(), ...(returnTo ? { return_to: returnTo } : {}) })}`;
}

/**
 * Where a sign-in started on this address should land afterwards: back on an OAuth consent
 * screen (#/oauth/consent?uid=...) it interrupted; anywhere else the dashboard's home.
 */
export function signInReturn(hash: string): string | undefined {
  const target = `/app/${hash}`;
  return hash.startsWith('#/oauth/consent?') && target.length <= 500 ? target : undefined;
}

/** A server start URL (`details.start_url` of sso_required) with where to land added. */
export function withReturn(startUrl: string, returnTo: string | undefined): string {
  if (!returnTo) return startUrl;
  const url = new URL(startUrl, 'http://mallard.invalid');
  url.searchParams.set('return_to', returnTo);
  return `${url.pathname}${url.search}`;
}

const MESSAGES: Record<string, string> = {
  sso_not_configured: 'Single sign-on is not set up for that address. Sign in with your password, or ask an admin of your organisation.',
  sso_discovery_failed: 'Your organisation\'s identity provider could not be reached. Try again in a moment, or ask an admin to check the connection.',
  sso_state_invalid: 'That sign-in expired or was already used. Start again.',
  sso_provider_error: 'The identity provider did not sign you in. Start again.',
  sso_token_invalid: 'The identity provider\'s answer could not be checked. Start again; if it keeps happening, ask an admin to check the connection.',
  sso_email_missing: 'The identity provider did not say which email address you have.',
  sso_email_unverified: 'The identity provider has not verified your email address.',
  sso_not_member: 'You are not a member of this organisation. Ask an admin to add you.',
  rate_limited: 'Too many sign-in attempts. Wait a minute and try again.',
};

/** Every code the server may send back (features/sso/service.ts SSO_FAILURE_CODES; a server test compares them). */
export const SSO_ERROR_CODES = Object.keys(MESSAGES);

/** The sentence for an `sso_error` code; an unknown code still says that sign-in failed. */
export function ssoErrorMessage(code: string): string {
  return MESSAGES[code] ?? 'Single sign-on failed. Start again.';
}

/** Domains typed one per line or separated by commas or spaces, lowercased, without duplicates or a leading `@`. */
export function parseDomains(text: string): string[] {
  return [...new Set(text.split(/[\s,;]+/).map((d) => d.trim().replace(/^@/, '').toLowerCase()).filter(Boolean))];
}

/**
 * Where a password sign-in refused with 403 `sso_required` should go instead: the server's own
 * start URL from `details.start_url`, only if it is that route on this origin (never elsewhere).
 */
export function ssoRequiredStart(code: string, details: Record<string, unknown> | undefined): string | null {
  const url = details?.start_url;
  return code === 'sso_required' && typeof url === 'string' && url.startsWith('/v1/auth/sso/start?') ? url : null;
}
