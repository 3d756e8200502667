// Builds (or reuses) the read-bench datasets without running a bench, so a long 10M build can
// start first, on an idle machine, and the bench later finds it cached:
//   node --experimental-strip-types bench/build-datasets.ts --sizes 10m --dialects sqlite,postgres --database-url postgres://...
import { parseArgs } from 'node:util';
import { ensureDataset, SIZES } from './dataset.ts';

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '100k,1m' },
    dialects: { type: 'string', default: 'sqlite' },
    'database-url': { type: 'string', default: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test' },
    seed: { type: 'string', default: 'mallard' },
  },
});
// Hour-aligned, as the reads bench asks for its datasets.
const endAt = Math.floor(Date.now() / 3_600_000) * 3_600_000;
for (const size of values.sizes.split(',')) {
  const signals = SIZES[size];
  if (!signals) throw new Error(`unknown size ${size}; one of ${Object.keys(SIZES).join(', ')}`);
  for (const dialect of values.dialects.split(',') as ('sqlite' | 'postgres')[]) {
    await ensureDataset({ dialect, signals, seed: values.seed, endAt, baseUrl: values['database-url'] }, (line) => console.log(new Date().toISOString().slice(11, 19), line));
  }
}
