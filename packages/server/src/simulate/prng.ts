// A small seeded pseudo-random generator (sfc32, seeded from a string through cyrb128), so the
// simulator's output is a pure function of its seed and options. Not for anything secret.

/** cyrb128: four 32-bit seeds from a string. */
function cyrb128(text: string): [number, number, number, number] {
  let h1 = 1779033703, h2 = 3144134277, h3 = 1013904242, h4 = 2773480762;
  for (let i = 0; i < text.length; i++) {
    const k = text.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  h1 ^= h2 ^ h3 ^ h4;
  h2 ^= h1;
  h3 ^= h1;
  h4 ^= h1;
  return [h1 >>> 0, h2 >>> 0, h3 >>> 0, h4 >>> 0];
}

export class Prng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: string | number) {
    [this.a, this.b, this.c, this.d] = cyrb128(String(seed));
    for (let i = 0; i < 15; i++) this.next(); // mix the seed in
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.a >>>= 0; this.b >>>= 0; this.c >>>= 0; this.d >>>= 0;
    let t = (this.a + this.b) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.d = (this.d + 1) | 0;
    t = (t + this.d) | 0;
    this.c = (this.c + t) | 0;
    return (t >>> 0) / 4294967296;
  }

  /** A generator of its own, derived from this one's seed and a name: streams that do not disturb each other. */
  fork(name: string): Prng {
    return new Prng(`${this.a}:${this.b}:${this.c}:${this.d}:${name}`);
  }

  chance(p: number): boolean { return this.next() < p; }

  /** Integer in [min, max], both included. */
  int(min: number, max: number): number { return min + Math.floor(this.next() * (max - min + 1)); }

  between(min: number, max: number): number { return min + this.next() * (max - min); }

  pick<T>(items: readonly T[]): T { return items[Math.floor(this.next() * items.length)]; }

  /** One of the keys, with probability proportional to its weight. */
  weighted<T>(options: readonly (readonly [T, number])[]): T {
    const total = options.reduce((sum, [, w]) => sum + w, 0);
    let roll = this.next() * total;
    for (const [value, w] of options) {
      roll -= w;
      if (roll < 0) return value;
    }
    return options[options.length - 1][0];
  }

  /** Log-normal around a median, e.g. time spent on a page. */
  logNormal(median: number, spread = 0.6): number {
    const u = Math.max(this.next(), 1e-12);
    const v = this.next();
    const z = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    return median * Math.exp(z * spread);
  }

  /** Lower-case hex of the given length. */
  hex(length: number): string {
    let out = '';
    while (out.length < length) out += Math.floor(this.next() * 4294967296).toString(16).padStart(8, '0');
    return out.slice(0, length);
  }
}
