// The config each integration provider takes, as the form asks it. The published API
// description types `config` as any object (the server checks it per provider, in
// domain/integrations.ts: PROVIDER_CONFIGS), so the field names are copied here and
// packages/server/test/dashboard-settings-e2e.test.ts fails when they drift. Bounds are left
// to the server: its 400 names the field, and the form shows the message there.

export interface IntegrationField { name: string; label: string }
export interface IntegrationVariant { label: string; fields: IntegrationField[] }

/** Per provider, its ways to connect (Slack: an incoming webhook or a bot token), each with its fields. */
export const PROVIDER_FIELDS: Record<string, { use: string; variants: IntegrationVariant[] }> = {
  slack: {
    use: 'alert messages',
    variants: [
      { label: 'Incoming webhook', fields: [{ name: 'webhook_url', label: 'Incoming webhook URL' }] },
      { label: 'Bot token', fields: [{ name: 'bot_token', label: 'Bot token (xoxb-…)' }, { name: 'channel', label: 'Channel (e.g. #alerts)' }] },
    ],
  },
  pagerduty: { use: 'alert incidents', variants: [{ label: 'Events API v2', fields: [{ name: 'routing_key', label: 'Routing key (Events API v2)' }] }] },
  linear: { use: 'tickets', variants: [{ label: 'API key', fields: [{ name: 'api_key', label: 'API key' }, { name: 'team_id', label: 'Team id' }] }] },
  github: { use: 'tickets', variants: [{ label: 'Token', fields: [{ name: 'token', label: 'Token (with issues:write)' }, { name: 'repo', label: 'Repository (owner/name)' }] }] },
};
