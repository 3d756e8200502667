// The session narrative's sentences (features/sessions/narrative.ts): every signal template and
// tracked-event names of each shape, read as plain words with no word said twice in a row
// ("the user completed checkout completed" was one).
import { describe, expect, it } from 'vitest';
import { buildNarrative, describeSignal, describeTracked, type NarrativeEvent } from '../src/features/sessions/narrative.ts';
import { KNOWN_SIGNAL_TYPES } from '../src/domain/signals.ts';

const event = (over: Partial<NarrativeEvent>): NarrativeEvent => ({
  type: 'signal', page: '/checkout', occurred_at: 0, name: null, signal_type: null, element: null, label: null, props: null, ...over,
});

/** Adjacent repeated words, ignoring case and punctuation. */
function doubled(text: string): string[] {
  const words = text.toLowerCase().split(/[^a-z0-9']+/).filter(Boolean);
  return words.filter((word, i) => i > 0 && word === words[i - 1]);
}

describe('narrative wording', () => {
  it.each([
    ['checkout_completed', 'completed checkout'],
    ['signUpStarted', 'started sign up'],
    ['form-submitted', 'submitted form'],
    ['payment_sent', 'sent payment'],
    ['purchased', 'purchased'],
    ['add_to_cart', 'tracked "add to cart"'],
    ['search', 'tracked "search"'],
    ['__', 'tracked an event'],
  ])('a tracked %s reads "%s"', (name, words) => {
    expect(describeTracked(name)).toBe(words);
  });

  it('no signal template, with or without its details, says a word twice in a row', () => {
    const variants: Partial<NarrativeEvent>[] = [
      {},
      { element: 'button#pay', label: 'Pay now', props: { count: 5, duration_ms: 1800 } },
      { element: 'input#email', props: { count: 3 } },
      { label: 'Card declined', props: { duration_ms: 12_000 } },
    ];
    for (const signalType of [...KNOWN_SIGNAL_TYPES, 'something_new']) {
      for (const variant of variants) {
        const text = describeSignal(event({ signal_type: signalType, ...variant }));
        expect(doubled(text), `${signalType}: ${text}`).toEqual([]);
      }
    }
  });

  it('a whole session reads without doubled words', () => {
    const names = ['checkout_completed', 'signup_started', 'add_to_cart', 'order_paid'];
    const events: NarrativeEvent[] = [
      event({ type: 'pageview', page: '/cart', occurred_at: 0 }),
      event({ signal_type: 'rage_click', element: 'button#pay', label: 'Pay', props: { count: 4, duration_ms: 900 }, occurred_at: 1000, page: '/cart' }),
      ...names.map((name, i) => event({ type: 'track', name, occurred_at: 2000 + i, page: '/cart' })),
      event({ type: 'pageview', page: '/thanks', occurred_at: 60_000 }),
    ];
    const text = buildNarrative({ device_type: 'desktop', browser: 'Chrome', os: 'Windows', referrer_host: null, converted: true }, events);
    expect(text).toContain('the user clicked \'Pay\' (button#pay) 4 times in 0.9 s with no response; then completed checkout; then started signup; then tracked "add to cart"; then paid order.');
    expect(doubled(text), text).toEqual([]);
  });
});
