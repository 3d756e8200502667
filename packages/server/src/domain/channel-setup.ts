// Which alert channels can deliver for a site right now. The delivery worker
// (delivery/channels.ts) records a notification as failed with `no_integration`, and does not
// retry it, when Slack or PagerDuty has no integration on the site or email has no SMTP_URL on
// the server; a rule lists those channels (`undeliverable_channels`) so a face can warn before
// an alert is lost. Webhook and MCP need nothing set up to be accepted.
import type { Kysely } from 'kysely';
import type { Database } from '../store/tables.ts';

export interface ChannelSetup {
  /** The providers the site has an integration of. */
  providers: ReadonlySet<string>;
  /** SMTP_URL is set on the server. */
  email: boolean;
}

/** The channels of `channels` whose notifications would fail with `no_integration` under `setup`. */
export function undeliverableChannels<C extends string>(channels: readonly C[], setup: ChannelSetup): C[] {
  return channels.filter((c) => (c === 'email' ? !setup.email : c === 'slack' || c === 'pagerduty' ? !setup.providers.has(c) : false));
}

/** The site's setup as delivery will find it. */
export async function channelSetup(db: Kysely<Database>, siteId: string, smtpUrl: string | null): Promise<ChannelSetup> {
  const rows = await db.selectFrom('integrations').select('provider').where('site_id', '=', siteId).execute();
  return { providers: new Set(rows.map((r) => r.provider)), email: smtpUrl !== null };
}
