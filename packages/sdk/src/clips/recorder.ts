// The clips recorder: rrweb records the page (masked, see privacy.ts) into the rolling buffer;
// a tier-1 or tier-2 signal schedules a clip from BEFORE_MS before it to AFTER_MS after it,
// which other signals in that time join; a page not yet snapshotted today gets one masked full
// snapshot once it has settled. The server's answers (and the config's `accepting`,
// `full_elements`, `snapshots_taken`) say what it still wants. When the page goes away (pagehide,
// or hidden) before a clip's AFTER_MS are over, the clip is cut then and sent with keepalive.
import { record } from '@rrweb/record';
import { randomHex } from '../identity.ts';
import { AFTER_MS, BEFORE_MS, CHECKOUT_MS, ClipBuffer, FULL_SNAPSHOT, META, type RecordedEvent } from './buffer.ts';
import type { ClipSignal, ClipsHost } from './host.ts';
import { ClipPlan, type PendingClip } from './plan.ts';
import { normalizePath, pageGroups } from './pages.ts';
import { privacy, scrubEvent } from './privacy.ts';
import { rememberSnapshot, wantsSnapshot } from './snapshots.ts';
import { Uploader, type Outcome, type UploadBody } from './upload.ts';

/** After `load`, how long the page may stay busy before its snapshot is taken anyway. */
const SETTLE_MS = 2000;

export function startClips(host: ClipsHost, win: Window = window): () => void {
  const doc = win.document;
  const config = host.config ?? {};
  // The site's budget is spent for today: nothing would be sent, so nothing is recorded.
  if (config.accepting === false) return () => undefined;
  const rules = privacy(config, doc);
  const plan = new ClipPlan(config.full_elements);
  const buffer = new ClipBuffer();
  const uploader = new Uploader({
    url: `${host.endpoint}/v1/ingest/clips`, fetch: (input, init) => win.fetch(input, init), flush: () => host.flush(),
  });
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const later = (run: () => void, ms: number) => {
    const timer = setTimeout(() => { timers.delete(timer); run(); }, ms);
    timers.add(timer);
  };
  const store = () => { try { return win.localStorage; } catch { return null; } };
  let clipsOn = true;
  let snapshotsOn = true;
  let stopped = false;
  /** Set while a page snapshot is taken: collects its Meta and FullSnapshot events. */
  let capture: RecordedEvent[] | null = null;
  /** Pages (as the server stores them) whose snapshot this page load has asked for. */
  const asked = new Set<string>();
  let path = win.location.pathname;
  // Snapshots are wanted per page as the server stores it (`/orders/:id`), not per raw path.
  const groups = pageGroups(host.pageGroups);
  const pageHere = () => normalizePath(win.location.pathname, groups);

  type Fields = Omit<UploadBody, 'key' | 'sid' | 'vid' | 'env' | 'id' | 'meta'>;
  const bodyOf = (fields: Fields): UploadBody => ({
    key: host.key, sid: host.sid(), vid: host.vid(), env: host.env, id: randomHex(16),
    meta: { viewport_w: win.innerWidth, viewport_h: win.innerHeight, ua: win.navigator.userAgent }, ...fields,
  });

  const upload = async (fields: Fields): Promise<Outcome> => {
    const outcome = await uploader.send(bodyOf(fields));
    if (outcome === 'stop') clipsOn = snapshotsOn = false;
    // The site's budget is spent: nothing more of that kind from this page load.
    if (outcome === 'budget') {
      if (fields.kind === 'clip') clipsOn = false;
      else snapshotsOn = false;
    }
    // Nothing left to send: the recording stops too.
    if (!clipsOn && !snapshotsOn) stop();
    return outcome;
  };

  /** The clip's fields, cut from `clip.first - BEFORE_MS` to `end`; null when nothing replayable is held. */
  const clipFields = (clip: PendingClip, end: number) => {
    const cut = buffer.cut(clip.first - BEFORE_MS, end);
    if (!cut) return null;
    return {
      kind: 'clip' as const, page: clip.page, signal_ids: clip.ids, started_at: cut.startedAt, ended_at: cut.endedAt,
      width: win.innerWidth, height: win.innerHeight, events: cut.events,
    };
  };

  /** Clips whose AFTER_MS are not over yet. */
  const due = new Set<PendingClip>();

  const sendClip = (clip: PendingClip) => {
    if (!due.delete(clip)) return;
    plan.close(clip);
    const fields = stopped || !clipsOn ? null : clipFields(clip, clip.first + AFTER_MS);
    if (fields) void upload(fields);
  };

  const onSignal = (signal: ClipSignal) => {
    if (stopped || !clipsOn) return;
    const clip = plan.add(signal, Date.now());
    if (!clip) return;
    due.add(clip);
    later(() => sendClip(clip), AFTER_MS);
  };

  // The page is going away (or hidden, and may never be shown again): the clips still waiting
  // for their AFTER_MS are cut now and handed to the browser, best effort. The core's listeners
  // ran first (registered before this chunk loaded): the signals fired by leaving, and the
  // core's last events, are already on their way.
  const onLeave = (e: Event) => {
    if (e.type === 'visibilitychange' && doc.visibilityState !== 'hidden') return;
    const now = Date.now();
    for (const clip of [...due]) {
      due.delete(clip);
      plan.close(clip);
      const fields = stopped || !clipsOn ? null : clipFields(clip, Math.min(now, clip.first + AFTER_MS));
      if (fields) uploader.atExit(bodyOf(fields));
    }
  };
  win.addEventListener('pagehide', onLeave);
  doc.addEventListener('visibilitychange', onLeave);

  const takeSnapshot = (page: string) => {
    // The user moved on (an SPA route to another page) before the page settled: it is asked for again there.
    if (stopped || !snapshotsOn || pageHere() !== page) return void asked.delete(page);
    capture = [];
    try { record.takeFullSnapshot(true); } catch { /* not recording */ }
    const events = capture;
    capture = null;
    if (!events.some((e) => e.type === FULL_SNAPSHOT)) return;
    const root = doc.documentElement;
    void upload({
      kind: 'snapshot', page: win.location.pathname, started_at: events[0].timestamp, ended_at: events[events.length - 1].timestamp,
      width: Math.max(root.scrollWidth, doc.body?.scrollWidth ?? 0), height: Math.max(root.scrollHeight, doc.body?.scrollHeight ?? 0), events,
    }).then((outcome) => {
      if (outcome === 'stored' || outcome === 'refused') rememberSnapshot(config, page, store(), Date.now());
      else if (outcome === 'dropped') asked.delete(page);
    });
  };

  /** Checked at every checkout and whenever the path changed (an SPA route: its changes are recorded events). */
  const maybeSnapshot = (route = false) => {
    const page = pageHere();
    if (stopped || !snapshotsOn || asked.has(page) || !wantsSnapshot(config, page, store(), Date.now())) return;
    asked.add(page);
    const settle = () => {
      const idle = (win as Window & { requestIdleCallback?: (run: () => void, o: { timeout: number }) => void }).requestIdleCallback;
      if (idle) idle(() => takeSnapshot(page), { timeout: SETTLE_MS });
      else later(() => takeSnapshot(page), SETTLE_MS / 2);
    };
    // A new SPA route often renders what it fetched a moment later.
    if (doc.readyState === 'complete') later(settle, route ? SETTLE_MS / 2 : 0);
    else win.addEventListener('load', () => later(settle, 0), { once: true });
  };

  const stopRecording = record({
    emit(event) {
      if (stopped) return;
      const e = event as RecordedEvent;
      try {
        scrubEvent(e, rules, (id) => record.mirror.getNode(id));
      } catch {
        // An event that could not be checked is not kept.
        return;
      }
      if (capture && (e.type === META || e.type === FULL_SNAPSHOT)) capture.push(e);
      // Overflowed (a page changing without pause): start again from a fresh full snapshot.
      if (!buffer.add(e)) later(() => { if (!stopped) record.takeFullSnapshot(true); }, 0);
      if (e.type === META && !capture) maybeSnapshot();
      else if (win.location.pathname !== path) {
        path = win.location.pathname;
        maybeSnapshot(true);
      }
    },
    checkoutEveryNms: CHECKOUT_MS,
    blockSelector: rules.blockSelector,
    maskTextSelector: '*',
    maskTextFn: rules.maskTextFn,
    maskAllInputs: true,
    maskInputFn: rules.maskInputFn,
    slimDOMOptions: 'all',
    recordCanvas: false,
    collectFonts: false,
    inlineImages: false,
    recordCrossOriginIframes: false,
    // No flood: pointer positions at most every 50 ms, scroll every 150 ms, an input's last value.
    sampling: { mousemove: 50, scroll: 150, media: 800, input: 'last' },
    // rrweb's own failures stay inside the recorder.
    errorHandler: () => true,
  });
  const unsubscribe = host.on(onSignal);

  function stop() {
    if (stopped) return;
    stopped = true;
    unsubscribe();
    win.removeEventListener('pagehide', onLeave);
    doc.removeEventListener('visibilitychange', onLeave);
    due.clear();
    try { stopRecording?.(); } catch { /* already stopped */ }
    uploader.close();
    timers.forEach((timer) => clearTimeout(timer));
    timers.clear();
    buffer.clear();
  }
  return stop;
}
