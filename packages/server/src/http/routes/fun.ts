// GET /v1/fun: no auth, no data, no rate limit. `fact` comes about half the time.
import { Type } from '@sinclair/typebox';
import type { App } from '../app-types.ts';
import { randomDuckFact } from '../ducks.ts';
import { Envelope, ok } from '../envelope.ts';

const NOTES = [
  'Quack. All calm on the pond.',
  'The duck is watching your checkout page.',
  'Paddling furiously below, serene above.',
  'No bread, please. Ship fixes instead.',
  'A rage click is just a duck tapping on glass.',
  'This duck has reviewed your dead clicks and is unimpressed.',
];

export async function funRoutes(app: App) {
  app.get('/fun', {
    config: { access: { surface: 'public' } },
    schema: {
      tags: ['fun'], summary: 'A duck note, sometimes with a fact',
      response: { 200: Envelope(Type.Object({ duck: Type.String(), fact: Type.Optional(Type.String()) })) },
    },
  }, async () => {
    const duck = NOTES[Math.floor(Math.random() * NOTES.length)];
    return ok(Math.random() < 0.5 ? { duck, fact: randomDuckFact() } : { duck });
  });
}
