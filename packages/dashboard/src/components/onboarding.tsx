// Onboarding a site: the install snippet with the site's publishable key and allowed origins,
// a live check that polls for the first event (and lists the first signals as they arrive),
// and the set-up checklist the overview shows until every step is done. Everything is read
// from the public API as the signed-in user; nothing here writes except "create a key".
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../state/api.ts';
import { href } from '../state/router.ts';
import { canAdmin } from '../state/session.ts';
import { currentSite } from '../state/site.ts';
import type { ApiKeyList, Deploy, IntegrationList, NewApiKey, RawRows, Scores, WebhookList } from '../api/types.ts';
import { ActionOutcome, Loading, useAction, useApi } from './async.tsx';
import { CopyButton, SignalChip, Time } from './bits.tsx';
import { installSnippet, num } from '../lib/format.ts';

/** How often the live check asks while waiting for the first event, and then for signals. */
export const POLL_WAITING_MS = 3_000;
export const POLL_ARRIVED_MS = 10_000;

/**
 * /query/raw's answer with the columns the checklist reads: the document leaves a raw row an
 * open record (its columns depend on the table: the server's features/raw/tables.ts).
 */
type RawRowsOf<T> = Omit<RawRows, 'rows'> & { rows: T[] };
interface EventRow { id: string; type: string; page: string; occurred_at: string; signal_type: string | null }
interface SignalRow { id: string; signal_type: string; page: string; label: string | null; element: string | null; occurred_at: string }

/** What the live check has seen so far: null until its first answer. */
export interface LiveState { events: number; firstEvent: EventRow | null; signals: number; latestSignals: SignalRow[]; checkedAt: number }

/**
 * Polls `/query/raw` (one request a turn, the cheapest read that says whether anything
 * arrived: its `total` comes from kept counts): the events table every 3 s until the first
 * event, then the signals table every 10 s. It pauses while the tab is hidden, and a refused
 * request (a 429, a network hiccup) only waits for the next turn. `active` false: no request.
 */
export function useLiveCheck(site: string, active: boolean): LiveState | null {
  const [state, setState] = useState<LiveState | null>(null);
  useEffect(() => {
    setState(null);
    if (!active) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let seen: LiveState = { events: 0, firstEvent: null, signals: 0, latestSignals: [], checkedAt: 0 };
    const turn = async () => {
      timer = undefined;
      if (stopped) return;
      if (document.hidden) { timer = setTimeout(turn, POLL_WAITING_MS); return; }
      try {
        if (seen.events === 0) {
          const ev = await api.get<RawRowsOf<EventRow>>('/query/raw', { site_id: site, table: 'events', limit: 1, order: 'asc' });
          seen = { ...seen, events: ev.total, firstEvent: ev.rows[0] ?? null, checkedAt: Date.now() };
        }
        if (seen.events > 0) {
          const sg = await api.get<RawRowsOf<SignalRow>>('/query/raw', { site_id: site, table: 'signals', limit: 5 });
          seen = { ...seen, signals: sg.total, latestSignals: sg.rows, checkedAt: Date.now() };
        }
        if (!stopped) setState(seen);
      } catch (err) {
        // A 401 has already ended the session; anything else is tried again next turn.
        if (err instanceof ApiError && err.status === 401) return;
      }
      if (!stopped) timer = setTimeout(turn, seen.events === 0 ? POLL_WAITING_MS : POLL_ARRIVED_MS);
    };
    void turn();
    return () => { stopped = true; clearTimeout(timer); };
  }, [site, active]);
  return state;
}

/** The live "waiting for the first event" check, green once one arrived, with the latest signals. */
export function LiveCheck({ state }: { state: LiveState | null }) {
  if (!state || state.events === 0) {
    return (
      <div class="live-check waiting" role="status" aria-live="polite" data-testid="live-check" data-state="waiting">
        <p><span class="pulse" aria-hidden="true" /> <strong>Waiting for the first event…</strong> This updates by itself every few seconds once the snippet is on a page and someone opens it.</p>
        {state && <p class="muted small">Last checked <Time iso={new Date(state.checkedAt).toISOString()} short />: nothing yet.</p>}
      </div>
    );
  }
  const first = state.firstEvent;
  return (
    <div class="live-check arrived" role="status" aria-live="polite" data-testid="live-check" data-state="arrived">
      <p><span aria-hidden="true">✓</span> <strong>The SDK is sending.</strong> {num(state.events)} event{state.events === 1 ? '' : 's'} so far{first && <>; the first, a {first.type === 'signal' ? 'signal' : first.type} on <code>{first.page}</code>, <Time iso={first.occurred_at} relative /></>}.</p>
      {state.signals === 0
        ? <p class="muted small">No friction signal yet. Rage clicks, dead clicks, presses on disabled controls and errors appear here as visitors meet them.</p>
        : (
          <>
            <p class="small">{num(state.signals)} signal{state.signals === 1 ? '' : 's'} so far; the latest:</p>
            <ul class="plain-list first-signals" data-testid="first-signals">
              {state.latestSignals.map((s) => (
                <li key={s.id} data-signal={s.signal_type}><SignalChip type={s.signal_type} /> on <code>{s.page}</code>{s.label && <> · “{s.label}”</>} · <Time iso={s.occurred_at} relative /></li>
              ))}
            </ul>
          </>
        )}
      <p class="muted small">Scores, issues and alerts follow after the next pipeline cycle (every 15 minutes unless your server is set otherwise).</p>
    </div>
  );
}

/** Where the SDK may send from: the site's allowed origins, from the site list. */
function AllowedOrigins() {
  const origins = currentSite.value?.allowed_origins ?? null;
  if (origins === null) return null;
  return (
    <p data-testid="allowed-origins">
      {origins.length === 0
        ? <>Allowed origins: <strong>any</strong>. This site lists none, so a page at any address may send with its key.</>
        : <>Allowed origins: {origins.map((o, i) => <span key={o}>{i > 0 && ', '}<code>{o}</code></span>)}. Pages at any other address are refused.</>}
    </p>
  );
}

/** The snippet, and where its key comes from: admins can create a publishable key right here. */
export function InstallSnippet({ site }: { site: string }) {
  const admin = canAdmin.value;
  const keys = useApi(() => (admin ? api.get<ApiKeyList>('/manage/keys', { site_id: site }) : Promise.resolve(null)), [site, admin]);
  const action = useAction();
  const [created, setCreated] = useState<string | null>(null);
  const publishable = (keys.data?.keys ?? []).filter((k) => k.key_type === 'publishable' && k.status === 'active');
  const snippet = installSnippet(location.origin, created ?? undefined);
  const create = () => void action.run(async () => {
    const key = await api.post<NewApiKey>('/manage/keys', { key_type: 'publishable', site_id: site, name: 'browser SDK' });
    setCreated(key.key);
    keys.reload();
  });
  return (
    <div id="install-snippet-block">
      <p>Paste this tag into the <code>&lt;head&gt;</code> of every page of the site:</p>
      <pre class="snippet" data-testid="install-snippet">{snippet}</pre>
      <CopyButton text={snippet} label="Copy the snippet" />
      {created ? (
        <p class="state done" data-testid="new-publishable-key">The snippet holds a new publishable key of this site. Copy it now: Mallard keeps only a hash and will not show the key again.</p>
      ) : (
        <p>
          Then replace <code>svc_pub_...</code> with a <strong>publishable key</strong> of this site (it starts with <code>svc_pub_</code>).{' '}
          {admin
            ? <>{publishable.length > 0 && <>This site has {publishable.length === 1 ? 'one' : num(publishable.length)}: {publishable.map((k, i) => <span key={k.id}>{i > 0 && ', '}<code>{k.key_hint}</code></span>)}; the whole key is shown only when it is created. </>}
              Create one here, or find and manage them in <a href={href('settings', 'keys')}>Settings › Keys</a>.</>
            : <>An admin finds or creates one in Settings › Keys (type “publishable”).</>}
          {' '}A publishable key can only send data, so it is safe in a page.
        </p>
      )}
      {admin && !created && keys.state === 'loading' && <Loading what="this site's keys" />}
      {admin && !created && keys.state !== 'loading' && (
        <p><button type="button" class="primary" data-testid="create-publishable" disabled={action.busy} onClick={create}>
          {publishable.length > 0 ? 'Create another publishable key' : 'Create a publishable key'}
        </button></p>
      )}
      <ActionOutcome action={action} what="create the key" />
      <AllowedOrigins />
    </div>
  );
}

// ---- The checklist -------------------------------------------------------------------

interface Channels { alertChannel: boolean; mcp: { exists: boolean; lastUsed: string | null } | null }
const channelCache = new Map<string, { at: number; value: Channels }>();
/** The manage reads count against the manage limit (30 a minute per org): asked at most once a minute per site and tab. */
const CHANNELS_TTL_MS = 60_000;

async function loadChannels(site: string, admin: boolean): Promise<Channels> {
  const cached = channelCache.get(`${site}:${admin}`);
  if (cached && Date.now() - cached.at < CHANNELS_TTL_MS) return cached.value;
  const { integrations } = await api.get<IntegrationList>('/manage/integrations', { site_id: site });
  let alertChannel = integrations.some((i) => i.provider === 'slack' || i.provider === 'pagerduty');
  if (!alertChannel) {
    const { webhooks } = await api.get<WebhookList>('/manage/webhooks', { site_id: site });
    alertChannel = webhooks.some((w) => w.enabled);
  }
  let mcp: Channels['mcp'] = null;
  if (admin) {
    // Without site_id the list has the org-wide keys too, which also reach this site.
    const { keys } = await api.get<ApiKeyList>('/manage/keys');
    const mine = keys.filter((k) => k.key_type === 'mcp' && k.status === 'active' && (k.site_id === null || k.site_id === site));
    const lastUsed = mine.map((k) => k.last_used_at).filter((t): t is string => t !== null).sort().pop() ?? null;
    mcp = { exists: mine.length > 0, lastUsed };
  }
  const value = { alertChannel, mcp };
  channelCache.set(`${site}:${admin}`, { at: Date.now(), value });
  return value;
}

interface Step { id: string; title: string; done: boolean | null; doneText: ComponentChildren; todo: ComponentChildren }

/** Whether the scores already show a signal (a page's breakdown counts one), so no request is needed. */
const scoresShowSignal = (scores: Scores) => scores.site.pages.some((p) => p.signal_count > 0 || p.breakdown.some((b) => b.count > 0));

/**
 * Five steps, each read from the API: an event arrived (the live check, or a scored page), a
 * signal arrived (the live check, a page's breakdown, or one signals row), a deploy recorded
 * (`/query/deploys`), an alert channel (a Slack or PagerDuty integration or an enabled
 * webhook), an MCP key of the site or the org (admins only: the keys list is theirs). Shown
 * until every step it can read is done.
 */
export function SetupChecklist({ site, scores, deploys, live }: { site: string; scores: Scores | null; deploys: Deploy[] | null; live: LiveState | null }) {
  const admin = canAdmin.value;
  const channels = useApi(() => loadChannels(site, admin), [site, admin]);
  const scored = (scores?.site.pages.length ?? 0) > 0;
  const needSignalRead = scored && scores !== null && !scoresShowSignal(scores);
  const signalRows = useApi(() => (needSignalRead ? api.get<RawRowsOf<SignalRow>>('/query/raw', { site_id: site, table: 'signals', limit: 1 }) : Promise.resolve(null)), [site, needSignalRead]);
  if (!scores || !deploys) return null;

  const events = scored || (live?.events ?? 0) > 0;
  const signals = (scores && scoresShowSignal(scores)) || (live?.signals ?? 0) > 0 || (signalRows.data?.total ?? 0) > 0;
  const ch = channels.data ?? null;
  const mcp = ch?.mcp ?? null;
  const toSnippet = () => document.getElementById('install-snippet-block')?.scrollIntoView({ block: 'center' });
  const steps: Step[] = [
    {
      id: 'sdk', title: 'SDK installed', done: events,
      doneText: 'Events are arriving from the site.',
      todo: <>Paste the snippet into the site's pages. <button type="button" class="link" onClick={toSnippet}>Go to the snippet</button></>,
    },
    {
      id: 'signal', title: 'First signal', done: signals,
      doneText: 'Mallard has seen visitors struggle at least once.',
      todo: events
        ? <>Comes when a visitor rage-clicks, clicks something that does nothing or presses a disabled control. <a href={href('sessions')}>See the sessions so far</a></>
        : 'Comes once the SDK is installed and a visitor meets friction; the live check above lists signals as they arrive.',
    },
    {
      id: 'deploy', title: 'First deploy recorded', done: deploys.length > 0,
      doneText: 'Deploys are recorded, so scores are compared before and after each.',
      todo: <>Have your CI record each release. <a href={href('deploys')}>How to record deploys</a></>,
    },
    {
      id: 'alerts', title: 'An alert channel connected', done: ch ? ch.alertChannel : null,
      doneText: 'Alerts have somewhere to go: Slack, PagerDuty or a webhook.',
      todo: <><a href={href('settings', 'integrations')}>Connect Slack or PagerDuty</a> or <a href={href('settings', 'webhooks')}>add a webhook</a>, so alerts reach someone.</>,
    },
    {
      id: 'mcp', title: 'MCP set up', done: mcp ? mcp.exists : null,
      doneText: mcp?.lastUsed ? <>An MCP key exists, last used <Time iso={mcp.lastUsed} relative />.</> : 'An MCP key exists; it has not been used yet.',
      todo: admin
        ? <><a href={href('settings', 'mcp')}>Set up an AI assistant</a> with an MCP key.</>
        : <>An admin can tell whether an MCP key exists. <a href={href('settings', 'mcp')}>How to set up an AI assistant</a></>,
    },
  ];
  const known = steps.filter((s) => s.done !== null);
  const doneCount = known.filter((s) => s.done).length;
  // Nothing until the integrations (and keys, and signals when needed) are read, so no step flickers from "not known" to done.
  if (channels.state === 'loading' || signalRows.state === 'loading') return null;
  // Until done: the list goes once every step it can read is done.
  if (known.every((s) => s.done)) return <p class="sr-only" data-testid="setup-done">Every set-up step is done.</p>;
  return (
    <section class="card checklist" aria-labelledby="ov-setup" data-testid="setup-checklist">
      <h2 id="ov-setup">Getting started: {doneCount} of {steps.length} done</h2>
      <ol class="steps">
        {steps.map((s) => (
          <li key={s.id} data-step={s.id} data-done={s.done === null ? 'unknown' : String(s.done)} class={s.done ? 'step done' : 'step'}>
            <span class="tick" aria-hidden="true">{s.done ? '✓' : s.done === null ? '?' : '○'}</span>
            <div>
              <strong>{s.title}</strong>{s.done ? <span class="sr-only"> (done)</span> : s.done === null ? <span class="muted small"> (not known)</span> : null}
              <div class="small">{s.done ? s.doneText : s.todo}</div>
            </div>
          </li>
        ))}
      </ol>
      {channels.state === 'error' && <p class="muted small">Could not read the integrations{admin ? ' and keys' : ''} ({channels.error.code}); those steps show as not known.</p>}
    </section>
  );
}

/** How to record deploys, in words and one command to copy (for the deploys screen and its empty states). */
export function RecordDeploys() {
  const command = `curl -s -X POST ${location.origin}/v1/manage/deploys \\\n  -H "Authorization: Bearer $MALLARD_KEY" -H 'Content-Type: application/json' \\\n  -d '{"version":"v1.4.2","commit_sha":"9f1c2ab"}'`;
  return (
    <div class="record-deploys" data-testid="record-deploys">
      <p class="state empty">No deploys recorded yet. Have your CI or release script record each release with a secret key that may write ({canAdmin.value ? <a href={href('settings', 'keys')}>create one in Settings › Keys</a> : 'an admin creates one in Settings › Keys'}, scope manage:write); its score before and after then appears here.</p>
      <details>
        <summary>The command for CI</summary>
        <pre class="snippet">{command}</pre>
        <CopyButton text={command} label="Copy the command" />
      </details>
    </div>
  );
}
