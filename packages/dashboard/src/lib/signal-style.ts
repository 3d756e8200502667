// How each signal type is drawn: a colour from the Okabe-Ito palette (told apart by most
// colour-blind readers) AND a distinct shape, so no one has to rely on colour alone.
export type Shape = 'circle' | 'triangle' | 'square' | 'diamond' | 'cross';

export interface SignalStyle { colour: string; shape: Shape; label: string }

const STYLES: Record<string, SignalStyle> = {
  rage_click: { colour: '#d55e00', shape: 'triangle', label: 'Rage click' },
  dead_click: { colour: '#0072b2', shape: 'circle', label: 'Dead click' },
  disabled_element_attempt: { colour: '#8a6100', shape: 'square', label: 'Disabled control' },
  error_encounter: { colour: '#cc79a7', shape: 'diamond', label: 'Error' },
};
const FALLBACK: Omit<SignalStyle, 'label'> = { colour: '#555f66', shape: 'cross' };

export function signalStyle(type: string): SignalStyle {
  return STYLES[type] ?? { ...FALLBACK, label: type.charAt(0).toUpperCase() + type.slice(1).replaceAll('_', ' ') };
}

/** An SVG path for a mark of this shape centred on (x, y) with radius r. */
export function markPath(shape: Shape, x: number, y: number, r: number): string {
  const f = (n: number) => Math.round(n * 100) / 100;
  switch (shape) {
    case 'circle':
      return `M${f(x - r)} ${f(y)}a${f(r)} ${f(r)} 0 1 0 ${f(2 * r)} 0a${f(r)} ${f(r)} 0 1 0 ${f(-2 * r)} 0z`;
    case 'square': {
      const s = r * 0.9;
      return `M${f(x - s)} ${f(y - s)}h${f(2 * s)}v${f(2 * s)}h${f(-2 * s)}z`;
    }
    case 'triangle':
      return `M${f(x)} ${f(y - r * 1.15)}L${f(x + r * 1.1)} ${f(y + r * 0.75)}L${f(x - r * 1.1)} ${f(y + r * 0.75)}z`;
    case 'diamond':
      return `M${f(x)} ${f(y - r * 1.2)}L${f(x + r * 1.2)} ${f(y)}L${f(x)} ${f(y + r * 1.2)}L${f(x - r * 1.2)} ${f(y)}z`;
    case 'cross': {
      const a = r * 0.35;
      return `M${f(x - a)} ${f(y - r)}h${f(2 * a)}v${f(r - a)}h${f(r - a)}v${f(2 * a)}h${f(a - r)}v${f(r - a)}h${f(-2 * a)}v${f(a - r)}h${f(a - r)}v${f(-2 * a)}h${f(r - a)}z`;
    }
  }
}
