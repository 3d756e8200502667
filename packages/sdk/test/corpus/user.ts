// A user at a real browser: every action goes through Chromium's input pipeline (mouse,
// wheel, keyboard, navigation) as a person's would; nothing calls the SDK's detectors.
import type { Page } from 'playwright-core';

export interface Point { x: number; y: number }

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class User {
  readonly page: Page;
  readonly base: string;

  constructor(page: Page, base: string) {
    this.page = page;
    this.base = base;
  }

  /** Opens a page by its address and waits until the SDK on it has read its config. */
  async open(path: string, waitUntil: 'load' | 'commit' = 'load') {
    await this.page.goto(this.base + path, { waitUntil });
    await this.ready();
  }

  /** The tag's client is running once init() (a second call returns its readiness) settles. */
  async ready() {
    await this.page.waitForFunction(() => 'Mallard' in window);
    await this.page.evaluate(() => (window as unknown as { Mallard: { init(o: { key: string }): Promise<void> } }).Mallard.init({ key: 'running' }));
  }

  async at(selector: string, rx = 0.5, ry = 0.5): Promise<Point> {
    const locator = this.page.locator(selector);
    await locator.scrollIntoViewIfNeeded();
    const box = (await locator.boundingBox())!;
    return { x: box.x + box.width * rx, y: box.y + box.height * ry };
  }

  /**
   * Input on a timetable: each step waits for its offset from now, or goes at once when the
   * machine is behind, and always after the step before it (input sent without waiting can
   * reach the page out of order on a busy machine).
   */
  async timed(steps: [number, () => Promise<unknown>][]) {
    const start = Date.now();
    for (const [at, step] of steps) {
      await pause(at - (Date.now() - start));
      await step();
    }
  }

  /**
   * `n` clicks `gapMs` apart at the element (or point, or where the pointer is), with the click count the system gives
   * (it climbs while clicks come within 500 ms, as for a double or triple click).
   */
  async clicks(target: string | Point | 'here', n = 1, gapMs = 250, modifiers: ('Control' | 'Shift')[] = []) {
    if (target !== 'here') {
      const { x, y } = typeof target === 'string' ? await this.at(target) : target;
      await this.page.mouse.move(x, y, { steps: typeof target === 'string' ? 3 : 1 });
    }
    for (const key of modifiers) await this.page.keyboard.down(key);
    const { mouse } = this.page;
    await this.timed(Array.from({ length: n }, (_, i) => {
      const clickCount = gapMs < 500 ? i + 1 : 1;
      return [i * gapMs, async () => {
        await mouse.down({ clickCount });
        await mouse.up({ clickCount });
      }] as [number, () => Promise<unknown>];
    }));
    for (const key of modifiers) await this.page.keyboard.up(key);
  }

  /** Clicks into a field and types, key by key. */
  async type(selector: string, text: string) {
    await this.clicks(selector);
    await this.page.keyboard.type(text, { delay: 20 });
  }

  /** Empties the focused field as a person does: select all, delete. */
  async clear(selector: string) {
    await this.clicks(selector);
    await this.page.keyboard.press('Control+A');
    await this.page.keyboard.press('Backspace');
  }

  key(name: string) {
    return this.page.keyboard.press(name);
  }

  /** Does what loads another page (a link, Enter in a search) and waits for the SDK on it. */
  async loads(action: () => Promise<unknown>) {
    await Promise.all([this.page.waitForEvent('framenavigated'), action()]);
    await this.ready();
  }

  /** Moves the pointer back and forth horizontally: `legs` legs of `px` from `from`, each `stepsPerLeg` moves 40 ms apart. */
  async sweep(from: Point, px: number, legs: number, stepsPerLeg = 2) {
    await this.page.mouse.move(from.x, from.y);
    const steps: [number, () => Promise<unknown>][] = [];
    for (let leg = 0; leg < legs; leg++) {
      for (let i = 1; i <= stepsPerLeg; i++) {
        const done = i / stepsPerLeg;
        const x = from.x + px * (leg % 2 === 0 ? done : 1 - done);
        steps.push([(leg * stepsPerLeg + i) * 40, () => this.page.mouse.move(x, from.y)]);
      }
    }
    await this.timed(steps);
  }

  /** Scrolls with the wheel by each delta in turn, `gapMs` apart. */
  async wheel(deltas: number[], gapMs = 300) {
    await this.page.mouse.move(640, 360);
    await this.timed(deltas.map((dy, i) => [i * gapMs, () => this.page.mouse.wheel(0, dy)]));
    await pause(gapMs);
  }

  /** Rests the pointer `below` px under the element's centre. */
  async hover(selector: string, below = 0) {
    const { x, y } = await this.at(selector);
    await this.page.mouse.move(x, y + below, { steps: 3 });
  }

  /** Waits, in the page, until `selector` exists and has been painted (what a person can see). */
  async shown(selector: string) {
    await this.page.evaluate((wanted) => new Promise((resolve) => {
      const check = () => {
        if (!document.querySelector(wanted)) return requestAnimationFrame(check);
        requestAnimationFrame(() => requestAnimationFrame(resolve));
      };
      check();
    }), selector);
  }

  /** On /shift: the page's own script brings its banner, and we wait until it is painted. */
  async showBanner() {
    await this.page.evaluate(() => (window as unknown as { showBanner(): void }).showBanner());
    await this.shown('#banner');
  }

  /** Browser Back; a page restored from the back-forward cache fires no load event. */
  async back() {
    await this.page.goBack({ waitUntil: 'commit' });
    await pause(300);
  }

  async reload() {
    await this.page.reload();
    await this.ready();
  }
}
