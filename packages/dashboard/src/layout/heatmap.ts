// Page heatmap geometry. Points are fractions of the visible viewport at click time, so they
// are drawn inside a frame of that device class's viewport shape, never over a page picture.
export type DeviceClass = 'desktop' | 'tablet' | 'mobile';
export const DEVICE_CLASSES: readonly DeviceClass[] = ['desktop', 'tablet', 'mobile'];

/** A typical viewport of each class (CSS pixels); only the aspect ratio matters for drawing. */
export const VIEWPORTS: Record<DeviceClass, { width: number; height: number; name: string }> = {
  desktop: { width: 1280, height: 800, name: 'Desktop' },
  tablet: { width: 820, height: 1180, name: 'Tablet' },
  mobile: { width: 390, height: 844, name: 'Mobile' },
};

export interface Size { width: number; height: number }

/** The largest frame of the device's aspect ratio that fits in the space given. */
export function frameSize(device: DeviceClass, space: Size): Size {
  const { width, height } = VIEWPORTS[device];
  const scale = Math.min(space.width / width, space.height / height);
  return { width: Math.round(width * scale), height: Math.round(height * scale) };
}

const clamp01 = (n: number) => (Number.isFinite(n) ? Math.min(1, Math.max(0, n)) : 0);

/** A viewport point (fractions) in frame pixels; values outside 0..1 are pinned to the edge. */
export function placePoint(point: { vx: number; vy: number }, frame: Size): { x: number; y: number } {
  return { x: clamp01(point.vx) * frame.width, y: clamp01(point.vy) * frame.height };
}

/** Mark radius: readable on a phone frame, not blotting out a desktop one. */
export function markRadius(frame: Size, count: number): number {
  const base = Math.max(4, Math.min(8, frame.width / 90));
  return count > 300 ? Math.max(3.5, base * 0.75) : base;
}
