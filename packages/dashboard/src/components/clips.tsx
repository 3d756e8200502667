// Clips of an issue or a session: the list (newest first, as the API gives them), one playing
// at a time, and the empty states that say why there is nothing to watch: clips off for the
// site (Settings › SDK config turns them on) or none recorded yet.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { clipOnSession } from '../layout/clip-timeline.ts';
import { api } from '../state/api.ts';
import { href } from '../state/router.ts';
import type { Clip, ClipList, SdkConfigs } from '../api/types.ts';
import { Async, Empty, useApi } from './async.tsx';
import { SignalChip, Time } from './bits.tsx';
import { ClipPlayer, clock } from './clip-player.tsx';

/** Whether any environment of the site records clips; null when the SDK config cannot be read. */
export function useClipsOn(site: string, wanted: boolean) {
  return useApi(() => (wanted
    ? api.get<SdkConfigs>('/manage/sdk-config', { site_id: site })
      // A config is an open record in the document; clips.enabled is what turns clips on.
      .then((c) => c.environments.some((e) => (e.config.clips as { enabled?: unknown } | null | undefined)?.enabled === true), () => null)
    : Promise.resolve(null)), [site, wanted]);
}

export function NoClips({ site, what }: { site: string; what: string }) {
  const on = useClipsOn(site, true);
  if (on.state !== 'ok') return null;
  if (on.data === false) return <p class="state empty" data-testid="clips-off">Clips are off for this site: <a href={href('settings', 'sdk')}>Settings › SDK config</a> turns them on.</p>;
  return <Empty>No clips of {what} yet: a clip is recorded when a friction signal fires on a page with clips on.</Empty>;
}

export const clipLength = (c: Clip) => clock(Date.parse(c.ended_at) - Date.parse(c.started_at));

/** The list with a Watch button per clip; `signalTimes` gives a signal id's time where the screen knows it. */
export function ClipsBlock({ site, query, what, signalTimes = {}, showSession = true }: {
  site: string; query: { issue_id?: string; session_id?: string }; what: string; signalTimes?: Record<string, number>; showSession?: boolean;
}) {
  const list = useApi(() => api.get<ClipList>('/query/clips', { site_id: site, ...query, limit: 20 }), [site, query.issue_id, query.session_id]);
  const [playing, setPlaying] = useState<Clip | null>(null);
  return (
    <Async load={list} what="clips">
      {(l) => l.clips.length === 0 ? <NoClips site={site} what={what} /> : (
        <>
          <p class="muted small">{l.total} clip{l.total === 1 ? '' : 's'}, masked: text and inputs are hidden, media blocked.</p>
          <ul class="clip-list">
            {l.clips.map((c) => (
              <li key={c.id} data-clip-row={c.id}>
                <button type="button" aria-pressed={playing?.id === c.id} onClick={() => setPlaying(playing?.id === c.id ? null : c)}>{playing?.id === c.id ? 'Close' : 'Watch'}</button>
                <Time iso={c.started_at} short /> · {clipLength(c)} · <code>{c.page}</code>{c.device && ` · ${c.device}`}
                {c.signal_types.map((t) => <SignalChip key={t} type={t} />)}
                {showSession && <a href={href('sessions', c.session_id)} class="small">session</a>}
              </li>
            ))}
          </ul>
          {playing && <ClipPlayer key={playing.id} site={site} clip={playing} signalAt={signalTimes[playing.signal_ids[0]]} />}
        </>
      )}
    </Async>
  );
}

/** The session's clips as marks on a strip as long as the session, each opening the player. */
export function SessionClips({ site, session, signalTimes }: { site: string; session: { session_id: string; started_at: string; ended_at: string | null }; signalTimes: Record<string, number> }) {
  const list = useApi(() => api.get<ClipList>('/query/clips', { site_id: site, session_id: session.session_id, limit: 50 }), [site, session.session_id]);
  const [playing, setPlaying] = useState<Clip | null>(null);
  return (
    <Async load={list} what="clips">
      {(l) => l.clips.length === 0 ? <NoClips site={site} what="this session" /> : (
        <SessionStrip session={session} clips={l.clips} playing={playing} onPlay={setPlaying}>
          {playing && <ClipPlayer key={playing.id} site={site} clip={playing} signalAt={signalTimes[playing.signal_ids[0]]} />}
        </SessionStrip>
      )}
    </Async>
  );
}

function SessionStrip({ session, clips, playing, onPlay, children }: { session: { started_at: string; ended_at: string | null }; clips: Clip[]; playing: Clip | null; onPlay(c: Clip | null): void; children: ComponentChildren }) {
  return (
    <>
      <p class="muted small">{clips.length} clip{clips.length === 1 ? '' : 's'} at their moments in the session; choose one to watch it.</p>
      <div class="session-clips" role="group" aria-label="Clips along the session">
        {clips.map((c) => {
          const at = clipOnSession(c, session);
          const label = `Watch the clip at ${new Date(c.started_at).toLocaleTimeString()} (${clipLength(c)}, ${c.signal_types.join(', ')})`;
          return <button key={c.id} type="button" data-clip={c.id} aria-label={label} title={label} aria-pressed={playing?.id === c.id}
            style={{ left: `min(${(at.from * 100).toFixed(2)}%, calc(100% - 0.9rem))`, width: `max(0.9rem, ${((at.to - at.from) * 100).toFixed(2)}%)` }} onClick={() => onPlay(playing?.id === c.id ? null : c)} />;
        })}
      </div>
      {children}
    </>
  );
}
