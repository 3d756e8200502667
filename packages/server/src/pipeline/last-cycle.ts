// How long ago the pipeline last ran, as the store records it (site_score_history has a row per
// site and cycle, written by whichever process ran it), so an API process reports a stuck or
// missing `mallard worker`. One seek per live site on the (site_id, cycle_at) unique index.
import type { Kysely } from 'kysely';
import type { Database } from '../store/tables.ts';

/**
 * Seconds since the latest cycle any process recorded. With live sites but no cycle yet, since
 * the oldest of them was created (the pipeline has owed a cycle since then); null without a
 * live site (nothing to run).
 */
export async function lastCycleAgeSeconds(db: Kysely<Database>, now: number): Promise<number | null> {
  const perSite = db.selectFrom('sites as s').where('s.deleted_at', 'is', null).select((eb) => [
    's.created_at',
    eb.selectFrom('site_score_history as h').whereRef('h.site_id', '=', 's.id').select((h) => h.fn.max('h.cycle_at').as('m')).as('latest'),
  ]);
  const row = await db.selectFrom(perSite.as('t'))
    .select((eb) => [eb.fn.max('t.latest').as('latest'), eb.fn.min('t.created_at').as('first_site')])
    .executeTakeFirst();
  const since = row?.latest ?? row?.first_site;
  return since === null || since === undefined ? null : Math.max(0, (now - Number(since)) / 1000);
}
