// An address the dashboard has no screen for: said plainly, with the way home, instead of
// silently showing another screen. `nested`: inside a screen that has its own h1 (settings).
import { href } from '../state/router.ts';

export function NoSuchScreen({ what, home = href(''), homeLabel = 'Go to the overview', nested = false }: { what: string; home?: string; homeLabel?: string; nested?: boolean }) {
  const text = <p class="state empty">There is no {what}. <a href={home}>{homeLabel}</a>.</p>;
  if (nested) return <section class="card no-such-screen" data-testid="no-such-screen" aria-labelledby="no-such"><h2 id="no-such">No such screen</h2>{text}</section>;
  return <div class="screen no-such-screen" data-testid="no-such-screen"><h1>No such screen</h1>{text}</div>;
}
