// The shell: sign-in when signed out; otherwise the header (site switcher, role, sign out),
// the navigation and the screen the address names.
import { useEffect, useState } from 'preact/hooks';
import { api, restoreSession } from './state/api.ts';
import { canAdmin, endSession, restoring, session } from './state/session.ts';
import { route, href } from './state/router.ts';
import { chooseSite, currentSite, loadSites, siteId, sites } from './state/site.ts';
import { useApi, Empty, ErrorNote, Loading } from './components/async.tsx';
import { SignIn } from './screens/sign-in.tsx';
import { MfaEnrolmentScreen } from './screens/settings/two-factor.tsx';
import { SetPassword } from './screens/set-password.tsx';
import { Overview } from './screens/overview.tsx';
import { PageScreen } from './screens/page.tsx';
import { IssuesScreen } from './screens/issues.tsx';
import { IssueScreen } from './screens/issue.tsx';
import { SessionsScreen } from './screens/sessions.tsx';
import { JourneysScreen } from './screens/journeys.tsx';
import { FlowsScreen } from './screens/flows.tsx';
import { FunnelsScreen } from './screens/funnels.tsx';
import { AlertsScreen } from './screens/alerts.tsx';
import { DeploysScreen } from './screens/deploys.tsx';
import { SettingsScreen } from './screens/settings.tsx';
import { NoSuchScreen } from './components/not-found.tsx';
import { OAuthConsentScreen } from './screens/oauth-consent.tsx';

const NAV = [
  ['', 'Overview'], ['issues', 'Issues'], ['alerts', 'Alerts'], ['deploys', 'Deploys'],
  ['journeys', 'Journeys'], ['funnels', 'Funnels'], ['flows', 'Flows'], ['sessions', 'Sessions'], ['settings', 'Settings'],
] as const;

/** The first segments of the addresses that have a screen; any other says "No such screen". */
const SCREENS = new Set(['page', 'issues', 'sessions', 'journeys', 'funnels', 'flows', 'alerts', 'deploys', 'settings']);

function Screen({ site }: { site: string | null }) {
  const { path, query } = route.value;
  const [first, second] = path;
  if (first !== undefined && !SCREENS.has(first)) return <NoSuchScreen what={`screen at #/${path.join('/')}`} />;
  if (first === 'settings') return <SettingsScreen site={site} tab={second ?? 'sites'} />;
  if (!site) return <Empty>This org has no site yet. {canAdmin.value ? <a href={href('settings', 'sites')}>Create one in Settings</a> : 'Ask an admin to create one.'}</Empty>;
  switch (first) {
    case undefined: return <Overview site={site} />;
    case 'page': return <PageScreen site={site} page={query.get('path') ?? '/'} />;
    case 'issues': return second ? <IssueScreen site={site} id={second} /> : <IssuesScreen site={site} query={query} />;
    case 'sessions': return <SessionsScreen site={site} id={second ?? null} query={query} />;
    case 'journeys': return <JourneysScreen site={site} query={query} />;
    case 'funnels': return <FunnelsScreen site={site} query={query} />;
    case 'flows': return <FlowsScreen site={site} query={query} />;
    case 'alerts': return <AlertsScreen site={site} id={second ?? null} query={query} />;
    case 'deploys': return <DeploysScreen site={site} />;
    default: return <NoSuchScreen what={`screen at #/${path.join('/')}`} />;
  }
}

function SignedIn() {
  const s = session.value!;
  const loaded = useApi(loadSites, [s.user.id, s.org.id]);
  const signOut = async () => {
    // End the session on the server (it clears the cookie); the tab forgets it either way.
    await api.signOut().catch(() => undefined);
    endSession('You signed out.');
  };
  const section = route.value.path[0] ?? '';
  const active = section === 'page' ? '' : section;
  // Below 720 px the navigation is a menu behind a button (responsive.css); it closes on every move.
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => setMenuOpen(false), [route.value]);
  const current = NAV.find(([to]) => to === active)?.[1];
  return (
    <>
      <a class="skip" href="#main" onClick={(e) => { e.preventDefault(); document.getElementById('main')?.focus(); }}>Skip to content</a>
      <header class="top">
        <a class="brand" href="#/"><span class="logo" aria-hidden="true" /> Mallard</a>
        <button type="button" class="menu-toggle" aria-expanded={menuOpen} aria-controls="screens-nav" onClick={() => setMenuOpen(!menuOpen)}>
          <span class="menu-icon" aria-hidden="true" /><span>Menu{current ? <span class="menu-current">: {current}</span> : null}</span>
        </button>
        {sites.value && sites.value.length > 0 && (
          <label class="site-switch">
            <span>Site</span>
            <select value={siteId.value ?? ''} onChange={(e) => chooseSite(e.currentTarget.value)}>
              {sites.value.map((site) => <option key={site.id} value={site.id}>{site.name}</option>)}
            </select>
          </label>
        )}
        <span class="who"><span class="email">{s.user.email}</span> <span class={`badge role role-${s.role}`} title={`Your role in ${s.org.name}`}>{s.role}</span></span>
        <button type="button" class="sign-out" onClick={signOut}>Sign out</button>
      </header>
      <nav id="screens-nav" class={`tabs${menuOpen ? ' open' : ''}`} aria-label="Screens">
        {NAV.map(([to, name]) => <a key={to} href={href(to)} aria-current={active === to ? 'page' : undefined}>{name}</a>)}
      </nav>
      <main id="main" tabIndex={-1}>
        {loaded.state === 'error' ? <ErrorNote error={loaded.error} what="load your sites" retry={loaded.reload} />
          // A tab that already chose a site (a reload) loads the screen while the site list loads.
          : loaded.state === 'loading' && !siteId.value ? <Loading what="your sites" />
          : <Screen site={loaded.state === 'ok' ? currentSite.value?.id ?? null : siteId.value} />}
      </main>
    </>
  );
}

export function App() {
  useEffect(() => { void restoreSession(); }, []);
  useEffect(() => { document.title = session.value ? `Mallard · ${session.value.org.name}` : 'Mallard · Sign in'; }, [session.value]);
  // Redeeming an invitation works signed in or out (someone may share a browser).
  if (route.value.path[0] === 'set-password') return <SetPassword />;
  // The org requires two-factor sign-in of this person, who has none yet: enrolment is all there is.
  if (session.value?.mfa_enrolment_required) {
    return <MfaEnrolmentScreen onSignOut={() => { void api.signOut().catch(() => undefined).then(() => endSession('You signed out.')); }} />;
  }
  // An application asking to connect over OAuth: its consent screen, once signed in (sign-in
  // keeps the address, so the person comes back here).
  const oauthUid = route.value.path[0] === 'oauth' && route.value.path[1] === 'consent' ? route.value.query.get('uid') : null;
  if (session.value && oauthUid) return <OAuthConsentScreen uid={oauthUid} />;
  if (session.value) return <SignedIn />;
  return restoring.value ? <main id="main"><Loading what="your session" /></main> : <SignIn />;
}
