// Copy-paste set-up for AI assistants over MCP: signing in with OAuth, the stdio command and the
// HTTP endpoint with a key; and the applications connected over OAuth.
import { CopyButton } from '../../components/bits.tsx';
import { OAuthConnections } from './oauth-connections.tsx';

export function McpSection({ site }: { site: string | null }) {
  const origin = location.origin;
  const stdio = JSON.stringify({
    mcpServers: {
      mallard: { command: 'npx', args: ['mallard', 'mcp'], env: { MALLARD_URL: origin, MALLARD_MCP_KEY: 'svc_mcp_...', ...(site ? { MALLARD_SITE_ID: site } : {}) } },
    },
  }, null, 2);
  const http = JSON.stringify({ mcpServers: { mallard: { type: 'http', url: `${origin}/v1/mcp`, headers: { Authorization: 'Bearer svc_mcp_...' } } } }, null, 2);
  const oauth = `claude mcp add --transport http mallard ${origin}/v1/mcp`;
  return (
    <>
      <h2>MCP set-up</h2>
      <h3>Sign in from the assistant (OAuth, no key)</h3>
      <p>Assistants that support OAuth (Claude Code, desktop and editor clients) need only the address <code>{origin}/v1/mcp</code>: they open this dashboard, you choose the org, the sites and read or read-and-write, and approve. For example:</p>
      <pre class="snippet">{oauth}</pre>
      <CopyButton text={oauth} label="Copy the command" />
      <OAuthConnections />
      <p>Let an AI assistant read this site's scores, issues, alerts and deploys. First create an <strong>mcp</strong> key under <a href="#/settings/keys">API keys</a> (admins), then paste one of these into the assistant's MCP settings with the key in place of <code>svc_mcp_...</code>.</p>
      <h3>Run locally (stdio), from a checkout of Mallard</h3>
      <pre class="snippet">{stdio}</pre>
      <CopyButton text={stdio} label="Copy the stdio set-up" />
      <h3>Over HTTP (Streamable HTTP)</h3>
      <pre class="snippet">{http}</pre>
      <CopyButton text={http} label="Copy the HTTP set-up" />
    </>
  );
}
