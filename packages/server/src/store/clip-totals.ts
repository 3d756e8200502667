// What the clip store holds, by kind (clip, snapshot): rows and compressed bytes, for /metrics.
// One grouped read of the clips table, which the sites' retention and daily budgets keep small.
import type { Kysely } from 'kysely';
import type { Database } from './tables.ts';

export const CLIP_KINDS_STORED = ['clip', 'snapshot'] as const;

export async function clipStoreTotals(db: Kysely<Database>): Promise<Record<string, { rows: number; bytes: number }>> {
  const rows = await db.selectFrom('clips').select(['kind', (eb) => eb.fn.countAll<string>().as('rows'), (eb) => eb.fn.sum<string>('bytes').as('bytes')]).groupBy('kind').execute();
  const totals: Record<string, { rows: number; bytes: number }> = Object.fromEntries(CLIP_KINDS_STORED.map((kind) => [kind, { rows: 0, bytes: 0 }]));
  for (const r of rows) totals[r.kind] = { rows: Number(r.rows), bytes: Number(r.bytes ?? 0) };
  return totals;
}
