// The currency a site's money is in (its SDK config's revenue currency): the API gives amounts
// in cents without it, except /query/recommendations and /query/revenue. Asked once per site
// and tab, and remembered from any answer that carries it.
import { useEffect, useState } from 'preact/hooks';
import { api } from './api.ts';
import type { Recommendations } from '../api/types.ts';

const known = new Map<string, string>();
const asking = new Map<string, Promise<string>>();

export function rememberCurrency(site: string, currency: string) {
  known.set(site, currency);
}

function ask(site: string): Promise<string> {
  let p = asking.get(site);
  if (!p) {
    p = api.get<Recommendations>('/query/recommendations', { site_id: site, limit: 1 })
      .then((r) => { known.set(site, r.currency); return r.currency; })
      // Money still shows, in dollars, if this one read fails; the next screen asks again.
      .catch(() => { asking.delete(site); return 'USD'; });
    asking.set(site, p);
  }
  return p;
}

/** The site's currency: USD until known. */
export function useCurrency(site: string): string {
  const [currency, setCurrency] = useState(known.get(site) ?? 'USD');
  useEffect(() => {
    const cached = known.get(site);
    if (cached) { setCurrency(cached); return; }
    let live = true;
    void ask(site).then((c) => { if (live) setCurrency(c); });
    return () => { live = false; };
  }, [site]);
  return currency;
}
