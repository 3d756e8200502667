// A horizontal bar in hand-written SVG, for friction and counts in tables.
import { barWidths } from '../layout/scale.ts';

export function Bar({ value, max, colour = '#1f5f4a', label }: { value: number; max: number; colour?: string; label: string }) {
  const [w] = barWidths([value], 100, max);
  return (
    <svg class="bar" viewBox="0 0 100 8" preserveAspectRatio="none" role="img" aria-label={label}>
      <rect x="0" y="0" width="100" height="8" fill="#eef0f2" />
      <rect x="0" y="0" width={w} height="8" fill={colour} />
    </svg>
  );
}
