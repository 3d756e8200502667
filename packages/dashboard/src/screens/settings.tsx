// Settings: sites, keys, members, webhooks, integrations, SDK config, alert rules, the MCP
// set-up and single sign-on. Admins change them; everyone else reads (and the API refuses their writes anyway).
import { href } from '../state/router.ts';
import { canAdmin } from '../state/session.ts';
import { SitesSection } from './settings/sites.tsx';
import { KeysSection } from './settings/keys.tsx';
import { MembersSection } from './settings/members.tsx';
import { WebhooksSection } from './settings/webhooks.tsx';
import { IntegrationsSection } from './settings/integrations.tsx';
import { SdkConfigSection } from './settings/sdk-config.tsx';
import { RulesSection } from './settings/rules.tsx';
import { McpSection } from './settings/mcp.tsx';
import { SsoSection } from './settings/sso.tsx';
import { AccountSection } from './settings/account.tsx';
import { TwoFactorSection } from './settings/two-factor.tsx';
import { NoSuchScreen } from '../components/not-found.tsx';

const TABS = {
  account: ['Your account', AccountSection], 'two-factor': ['Two-factor', TwoFactorSection],
  sites: ['Sites', SitesSection], keys: ['API keys', KeysSection], members: ['Members', MembersSection],
  webhooks: ['Webhooks', WebhooksSection], integrations: ['Integrations', IntegrationsSection],
  sdk: ['SDK config', SdkConfigSection], rules: ['Alert rules', RulesSection], mcp: ['MCP set-up', McpSection], sso: ['Single sign-on', SsoSection],
} as const;
type Tab = keyof typeof TABS;

export function SettingsScreen({ site, tab }: { site: string | null; tab: string }) {
  const current: Tab | null = Object.hasOwn(TABS, tab) ? tab as Tab : null;
  return (
    <div class="screen settings">
      <h1>Settings</h1>
      {!canAdmin.value && <p class="state notice">You can read these settings; admins and owners change them.</p>}
      <nav class="subtabs" aria-label="Settings sections">
        {(Object.keys(TABS) as Tab[]).map((t) => <a key={t} href={href('settings', t)} aria-current={t === current ? 'page' : undefined}>{TABS[t][0]}</a>)}
      </nav>
      {current === null
        ? <NoSuchScreen what={`settings section “${tab}”: choose one of the sections above`} home={href('settings', 'sites')} homeLabel="Go to Sites" nested />
        : <section class="card" aria-label={TABS[current][0]}>{(() => { const Section = TABS[current][1]; return <Section site={site} />; })()}</section>}
    </div>
  );
}
