// What an outbound target (a webhook, an integration, an OIDC issuer) is checked against: the
// policy configuration sets and the resolver that names its addresses. The check itself, DNS
// and the address guard, is delivery/targets.ts; the policy is a word faces, services and
// delivery share, so the app's services carry it without the faces reaching into delivery.
export interface ResolvedAddress { address: string; family: 4 | 6 }
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;
export interface TargetPolicy { allowPrivate: boolean; requireHttps: boolean; resolve: Resolver }
