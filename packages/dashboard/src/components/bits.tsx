// Small shared pieces: times, scores, badges, signal marks and chips, a copy button.
import { useState } from 'preact/hooks';
import { ago, localTime, priorityLabel, score, spanLength, utcTime, words } from '../lib/format.ts';
import { markPath, signalStyle } from '../lib/signal-style.ts';

/** A time in the browser's zone; UTC on hover. */
export function Time({ iso, short, relative }: { iso: string | null | undefined; short?: boolean; relative?: boolean }) {
  if (!iso) return <span class="muted">–</span>;
  return <time dateTime={iso} title={utcTime(iso)}>{relative ? ago(iso) : localTime(iso, short)}</time>;
}

/** What a number covers: "the 24 hours from Nov 27, 8:45 PM to Nov 28, 8:45 PM", each end in UTC on hover. */
export function Window({ from, to }: { from: string | null | undefined; to: string | null | undefined }) {
  if (!from || !to) return <span class="muted">no window yet</span>;
  return <span class="window">the {spanLength(Date.parse(to) - Date.parse(from))} from <Time iso={from} short /> to <Time iso={to} short /></span>;
}

/** A priority with its reason: the number, labelled, and the words on hover and for screen readers. */
export function Priority({ value, reason }: { value: number; reason: string }) {
  return <span class="priority" title={reason}>{priorityLabel(value)}<span class="sr-only">: {reason}</span></span>;
}

export function Score({ value }: { value: number | null | undefined }) {
  return <span class="score">{score(value)}</span>;
}

const TREND = { up: ['↑', 'rising (worse)'], down: ['↓', 'falling (better)'], stable: ['→', 'stable'] } as const;
export function Trend({ trend }: { trend: 'up' | 'down' | 'stable' }) {
  const [arrow, text] = TREND[trend] ?? TREND.stable;
  return <span class={`trend trend-${trend}`}><span aria-hidden="true">{arrow}</span> {text}</span>;
}

export function Badge({ kind, value }: { kind: 'severity' | 'status' | 'duck'; value: string }) {
  return <span class={`badge ${kind}-${value}`}>{words(value)}</span>;
}

/** The mark a signal type gets on every map and chip: its colour and its shape. */
export function SignalMark({ type, size = 12 }: { type: string; size?: number }) {
  const s = signalStyle(type);
  return (
    <svg class="mark" width={size} height={size} viewBox="0 0 12 12" aria-hidden="true">
      <path d={markPath(s.shape, 6, 6, 4.5)} fill={s.colour} stroke="#fff" stroke-width="0.8" />
    </svg>
  );
}

export function SignalChip({ type, text }: { type: string; text?: string }) {
  return <span class="chip"><SignalMark type={type} /> {text ?? signalStyle(type).label}</span>;
}

export function Legend({ types }: { types: string[] }) {
  if (types.length === 0) return null;
  return <ul class="legend" aria-label="Legend">{types.map((t) => <li key={t}><SignalChip type={t} /></li>)}</ul>;
}

/** Copies text to the clipboard; the text stays selectable when the browser refuses. */
export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      setState('failed');
    }
  };
  return (
    <button type="button" class="copy" onClick={copy}>
      {state === 'copied' ? 'Copied' : state === 'failed' ? 'Select and copy by hand' : label}
    </button>
  );
}
