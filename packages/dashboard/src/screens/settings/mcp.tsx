// Copy-paste set-up for AI assistants over MCP: the stdio command and the HTTP endpoint.
import { CopyButton } from '../../components/bits.tsx';

export function McpSection({ site }: { site: string | null }) {
  const origin = location.origin;
  const stdio = JSON.stringify({
    mcpServers: {
      mallard: { command: 'npx', args: ['mallard', 'mcp'], env: { MALLARD_URL: origin, MALLARD_MCP_KEY: 'svc_mcp_...', ...(site ? { MALLARD_SITE_ID: site } : {}) } },
    },
  }, null, 2);
  const http = JSON.stringify({ mcpServers: { mallard: { type: 'http', url: `${origin}/v1/mcp`, headers: { Authorization: 'Bearer svc_mcp_...' } } } }, null, 2);
  return (
    <>
      <h2>MCP set-up</h2>
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
