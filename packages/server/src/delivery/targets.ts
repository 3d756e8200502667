// Outbound targets (webhooks, integrations) must be public: loopback, private, link-local,
// carrier-grade NAT, multicast and cloud metadata addresses are refused, at creation and
// again at send time after DNS resolution, unless MALLARD_ALLOW_PRIVATE_TARGETS=1. The
// resolver is injectable, so tests check refusals without a packet leaving.
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import type { Config } from '../config.ts';
import { invalidInput } from '../domain/errors.ts';
import type { ResolvedAddress, Resolver, TargetPolicy } from '../domain/outbound-targets.ts';

export type { ResolvedAddress, Resolver, TargetPolicy };

export const systemResolver: Resolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['64:ff9b::', 96]] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return blocked.check(mapped[1], 'ipv4');
    return blocked.check(address, 'ipv6');
  }
  return true; // not an address at all: refuse
}


/** The URL's address to connect to, or 400 invalid_input naming `field`. */
export async function checkTarget(raw: string, policy: TargetPolicy, field = 'url'): Promise<{ url: URL; address: ResolvedAddress }> {
  let url: URL;
  try { url = new URL(raw); } catch { throw invalidInput(field, 'must be a valid URL'); }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalidInput(field, 'must be an http or https URL');
  if (policy.requireHttps && url.protocol !== 'https:') throw invalidInput(field, 'must use https');
  if (url.username || url.password) throw invalidInput(field, 'must not contain credentials');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: ResolvedAddress[];
  if (isIP(host)) addresses = [{ address: host, family: isIP(host) === 6 ? 6 : 4 }];
  else {
    try { addresses = await policy.resolve(host); } catch { throw invalidInput(field, 'host does not resolve'); }
  }
  if (addresses.length === 0) throw invalidInput(field, 'host does not resolve');
  if (!policy.allowPrivate && addresses.some((a) => isPrivateAddress(a.address))) {
    throw invalidInput(field, 'must not target a private, loopback, link-local or metadata address');
  }
  return { url, address: addresses[0] };
}

/** What deliveries may reach under this config: private addresses only when allowed, HTTPS in production. */
export const targetPolicy = (config: Config, resolve: Resolver): TargetPolicy =>
  ({ allowPrivate: config.allowPrivateTargets, requireHttps: config.env === 'production', resolve });
