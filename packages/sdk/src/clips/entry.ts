// The clips chunk (dist/clips.js, served as /sdk/clips-<version>.js): the core sdk.js loads it
// only when the site's config turns clips on, then calls window.MallardClips(host).
import type { StartClips } from './host.ts';
import { startClips } from './recorder.ts';

const w = window as Window & { MallardClips?: StartClips };
w.MallardClips ??= (host) => startClips(host);
