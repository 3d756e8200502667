// The clip player's engine: rrweb's Replayer (from @rrweb/replay) in its sandboxed iframe
// (`allow-same-origin` only, so nothing recorded can run), with the recording's CSS lifted out
// and applied through the CSSOM after each event (lib/snapshot-styles.ts says why). Loaded on
// demand (a separate chunk) by the screens that play clips.
import { Replayer } from '@rrweb/replay';
import { liftEvents, type LiftedStyles, type RecordedEvent } from './snapshot-styles.ts';
import { applyStyles } from './frame-styles.ts';

export interface ClipReplay {
  /** The recorded viewport (CSS pixels). */
  width: number; height: number;
  play(fromMs: number): void;
  pause(atMs: number): void;
  currentTime(): number;
  setSpeed(speed: number): void;
  onFinish(listener: () => void): void;
  destroy(): void;
}

export function createReplay(root: HTMLElement, recorded: readonly RecordedEvent[]): ClipReplay {
  const { events, styles } = liftEvents(recorded);
  // Sheets of the document now in the frame; a full snapshot builds a new document.
  const sheets = new WeakMap<Document, Map<number, CSSStyleSheet>>();
  const replayer: Replayer = new Replayer(events as never, {
    root,
    skipInactive: false,
    mouseTail: false,
    useVirtualDom: false,
    triggerFocus: false,
    showWarning: false,
    plugins: [{
      handler(event, _isSync, { replayer: r }) {
        const lifted: LiftedStyles | undefined = styles.get(event as unknown as RecordedEvent);
        const doc = r.iframe.contentDocument;
        if (!lifted || !doc) return;
        let own = sheets.get(doc);
        if (!own) sheets.set(doc, own = new Map());
        applyStyles(doc, r.getMirror(), lifted, own);
      },
    }],
  });
  const meta = events.find((e) => e.type === 4)?.data as { width?: number; height?: number } | undefined;
  return {
    width: meta?.width ?? replayer.iframe.clientWidth,
    height: meta?.height ?? replayer.iframe.clientHeight,
    play: (fromMs) => replayer.play(fromMs),
    pause: (atMs) => replayer.pause(atMs),
    currentTime: () => replayer.getCurrentTime(),
    setSpeed: (speed) => replayer.setConfig({ speed }),
    onFinish: (listener) => { replayer.on('finish', listener); },
    destroy: () => replayer.destroy(),
  };
}
