// The consent screen's choices (screens/oauth-consent.tsx), kept apart from the screen: which
// org, site and access it starts with, what the server is sent, and how the redirect is shown.

import type { ConsentDetails } from '../api/types.ts';

export type { ConsentDetails };

/** `site`: a site id, or '' for every site of the org. */
export interface Choice { org: string; site: string; access: 'read' | 'write' }

/** Starts in the org the person is signed in to (else their first), on every site, read only: the least it can give. */
export function initialChoice(details: ConsentDetails, signedInOrg: string | null): Choice {
  const org = details.orgs.find((o) => o.id === signedInOrg) ?? details.orgs[0];
  return { org: org?.id ?? '', site: '', access: 'read' };
}

/** A change of org resets the site (another org's sites differ) and drops write where the role has none. */
export function withOrg(details: ConsentDetails, choice: Choice, orgId: string): Choice {
  const org = details.orgs.find((o) => o.id === orgId);
  return { org: orgId, site: '', access: org?.may_write ? choice.access : 'read' };
}

export function approveBody(choice: Choice) {
  return { org_id: choice.org, site_id: choice.site === '' ? null : choice.site, access: choice.access };
}

/**
 * Where the code will go, said plainly: a loopback address is "this computer" (a command-line or
 * desktop assistant), otherwise the host, since the client's name is only its own claim.
 */
export function redirectSummary(uri: string): string {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return uri;
  }
  if (['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname)) return `an application on this computer (${url.host})`;
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `the application registered for ${url.protocol.slice(0, -1)}: links`;
  return url.host;
}
