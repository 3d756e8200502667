// Duck facts: off by default; an org setting turns them on; `?ducks=on|off` or the
// `x-svc-ducks` header overrides it. A duck never changes an error's code, status or message.
import type { FastifyRequest } from 'fastify';

export const DUCK_FACTS: readonly string[] = [
  'Mallards are dabbling ducks: they tip forward to feed rather than diving.',
  'Only female mallards make the classic loud "quack"; males give a quieter, raspy call.',
  'A male mallard\'s green head is structural colour: the feathers scatter light rather than hold green pigment.',
  'Mallards are the ancestors of almost all domestic duck breeds except the Muscovy.',
  'Ducks have waterproof feathers thanks to oil from a preen gland near the base of the tail.',
  'Ducklings can follow their mother to water within a day of hatching.',
  'Ducks can sleep with one eye open, keeping half of the brain awake to watch for predators.',
  'A duck\'s feet have no nerves or blood vessels that feel cold the way ours do, so they can stand on ice.',
  'Ducks use a countercurrent heat exchange in their legs to keep their feet from losing body heat.',
  'Mallard eggs hatch after about 28 days of incubation.',
  'Most ducks moult all their flight feathers at once and cannot fly for a few weeks each year.',
  'During the eclipse moult, male mallards look much like females.',
  'A group of ducks on the water is often called a raft or a paddling.',
  'Mallards are found on every continent except Antarctica, partly through introductions.',
  'The mallard\'s blue wing patch is called the speculum.',
  'Ducks have a comb-like edge on their bills, called lamellae, to strain food from water.',
  'Mallards can reach flight speeds of around 80 km/h.',
  'Ducks have three eyelids; the third, the nictitating membrane, protects the eye underwater.',
  'Newly hatched ducklings imprint on the first moving thing they see, usually their mother.',
  'A mallard hen typically lays a clutch of 8 to 13 eggs.',
  'Ducks have more neck vertebrae than mammals, which makes their necks very flexible.',
  'Mallards can take off almost vertically from the water without a running start.',
  'The word "duck" comes from an Old English word meaning "diver".',
  'Ducks have a wide field of view, close to 340 degrees.',
  'Eider ducks line their nests with down plucked from their own breasts.',
  'The wood duck nests in tree holes, and its ducklings jump to the ground soon after hatching.',
  'Male ducks are called drakes and females are called hens.',
  'Mallards often fly in a V formation during migration to save energy.',
  'Ducks are omnivores: mallards eat seeds, plants, insects, snails and small fish.',
  'Mallards commonly hybridise with other duck species, such as the American black duck.',
  'Ducks see ultraviolet light, which helps them tell each other apart.',
  'A duck\'s bill has a hard tip called the nail, used for digging food.',
];

export function duckFactAt(index: number): string {
  return DUCK_FACTS[((index % DUCK_FACTS.length) + DUCK_FACTS.length) % DUCK_FACTS.length];
}

export function randomDuckFact(): string {
  return duckFactAt(Math.floor(Math.random() * DUCK_FACTS.length));
}

/** The request's explicit override, if any: the query parameter wins over the header. */
export function duckOverride(request: FastifyRequest): boolean | null {
  const query = request.query as Record<string, unknown> | undefined;
  const fromQuery = typeof query?.ducks === 'string' ? query.ducks : undefined;
  const header = request.headers['x-svc-ducks'];
  const raw = (fromQuery ?? (Array.isArray(header) ? header[0] : header))?.toLowerCase();
  if (raw === 'on') return true;
  if (raw === 'off') return false;
  return null;
}
