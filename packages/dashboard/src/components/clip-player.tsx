// The clip player: rrweb's replayer (lib/replay.ts, loaded on demand so the first load stays
// small) in a sandboxed frame scaled to the card, with our own controls: play and pause, a
// scrubber with the signal's moment marked on it, and the speed. It opens paused at the
// signal's moment, with a pulse where the signal happened.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, ApiError } from '../state/api.ts';
import type { Clip, ClipDetail } from '../api/types.ts';
import { clipEvents, clipSpan, fitViewport, scrubberFraction, signalMoment, signalPoint } from '../layout/clip-timeline.ts';
import type { ClipReplay } from '../lib/replay.ts';
import { signalStyle } from '../lib/signal-style.ts';
import { Async, ErrorNote, useApi } from './async.tsx';
import { useWidth } from './use-width.ts';

const SPEEDS = [1, 2, 4] as const;
/** How long around the signal's moment the pulse shows (ms). */
const PULSE_MS = 1500;
const MAX_HEIGHT = 480;

/** 0:07 */
export const clock = (ms: number) => { const s = Math.max(0, Math.round(ms / 1000)); return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`; };

function Player({ clip, detail, signalAt }: { clip: Clip; detail: ClipDetail; signalAt?: number }) {
  const [frame, frameWidth] = useWidth<HTMLDivElement>();
  const stage = useRef<HTMLDivElement>(null);
  const replay = useRef<ClipReplay | null>(null);
  const [size, setSize] = useState<{ width: number; height: number } | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  const [time, setTime] = useState(0);
  const [playing, setPlaying] = useState(false);
  const [speed, setSpeed] = useState<number>(1);
  const events = useMemo(() => clipEvents(detail.events), [detail]);
  const { duration } = clipSpan(events);
  const moment = signalMoment(events, clip.signal_ids[0], Date.parse(clip.started_at), signalAt);
  const point = signalPoint(events, moment);

  useEffect(() => {
    const root = stage.current;
    if (!root) return;
    let live = true;
    import('../lib/replay.ts').then(({ createReplay }) => {
      if (!live) return;
      const r = createReplay(root, events);
      replay.current = r;
      r.onFinish(() => { setPlaying(false); setTime(duration); });
      r.pause(moment);
      setTime(moment);
      setSize({ width: r.width, height: r.height });
    }).catch((err: unknown) => { if (live) setFailed(err instanceof Error ? err.message : String(err)); });
    return () => { live = false; replay.current?.destroy(); replay.current = null; };
  }, [detail]);

  // While playing, the scrubber follows the replayer.
  useEffect(() => {
    if (!playing) return;
    let frameId = 0;
    const tick = () => { if (replay.current) setTime(Math.min(duration, replay.current.currentTime())); frameId = requestAnimationFrame(tick); };
    frameId = requestAnimationFrame(tick);
    return () => cancelAnimationFrame(frameId);
  }, [playing]);

  const seek = (ms: number) => {
    const r = replay.current;
    if (!r) return;
    setTime(ms);
    if (playing) r.play(ms); else r.pause(ms);
  };
  const toggle = () => {
    const r = replay.current;
    if (!r) return;
    if (playing) { r.pause(r.currentTime()); setPlaying(false); return; }
    const from = time >= duration ? 0 : time;
    r.play(from);
    setPlaying(true);
  };
  const changeSpeed = (s: number) => { setSpeed(s); replay.current?.setSpeed(s); };

  if (failed) return <ErrorNote error={new ApiError('player_error', failed, 0)} what="play this clip" />;
  const scale = size ? fitViewport(size, Math.max(200, frameWidth - 2), MAX_HEIGHT) : 1;
  const type = clip.signal_types[0] ?? 'signal';
  const pulse = point && Math.abs(time - moment) <= PULSE_MS;
  const at = scrubberFraction(moment, duration) * 100;
  return (
    <div class="clip-player" data-clip={clip.id} ref={frame}>
      <div class="clip-frame" style={size ? { width: `${Math.round(size.width * scale)}px`, height: `${Math.round(size.height * scale)}px`, maxWidth: '100%' } : { height: '12rem' }}
        role="img" aria-label={`Recording of ${clip.page}, ${clock(duration)} long, masked`}>
        <div class="clip-stage" ref={stage} style={{ transform: `scale(${scale})` }} />
        {pulse && point && <span class="pulse" data-testid="signal-pulse" style={{ left: `${point.x * scale}px`, top: `${point.y * scale}px` }} />}
        {!size && <p class="state loading" role="status">Loading the player…</p>}
      </div>
      <div class="clip-controls" role="group" aria-label="Player controls">
        <button type="button" class="primary" data-testid="clip-play" disabled={!size} onClick={toggle}>{playing ? 'Pause' : 'Play'}</button>
        <div class="scrubber">
          <input type="range" min={0} max={Math.max(1, duration)} step="any" value={time} disabled={!size} aria-label="Position in the clip"
            aria-valuetext={`${clock(time)} of ${clock(duration)}`} data-testid="clip-scrubber" onInput={(e) => seek(Number(e.currentTarget.value))} />
          <span class="signal-marker" data-testid="signal-marker" data-moment={Math.round(moment)} style={{ left: `${at}%`, background: signalStyle(type).colour }} title={`${signalStyle(type).label} at ${clock(moment)}`} />
        </div>
        <span class="small mono" data-testid="clip-time">{clock(time)} / {clock(duration)}</span>
        <button type="button" onClick={() => seek(moment)} disabled={!size}>Go to the {signalStyle(type).label.toLowerCase()} ({clock(moment)})</button>
        <label class="inline"><span>Speed</span>
          <select value={String(speed)} onChange={(e) => changeSpeed(Number(e.currentTarget.value))} data-testid="clip-speed">
            {SPEEDS.map((s) => <option key={s} value={String(s)}>{s}×</option>)}
          </select>
        </label>
      </div>
    </div>
  );
}

/** Loads a clip's events and plays it; `signalAt` is the signal's time (ms since epoch) when the screen knows it. */
export function ClipPlayer({ site, clip, signalAt }: { site: string; clip: Clip; signalAt?: number }) {
  const detail = useApi(() => api.get<ClipDetail>(`/query/clips/${encodeURIComponent(clip.id)}`, { site_id: site }), [site, clip.id]);
  return <Async load={detail} what="the clip">{(d) => <Player key={clip.id} clip={clip} detail={d} signalAt={signalAt} />}</Async>;
}
