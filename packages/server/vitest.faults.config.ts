import { defineConfig } from 'vitest/config';

// The fault suite (`npm run faults`): real processes against a private PostgreSQL cluster, a
// private redis-server and a small tmpfs, each started and stopped by its test. One file at a
// time: each starts servers and databases of its own, and the machine has two cores.
export default defineConfig({
  test: {
    include: ['test/faults/**/*.fault.ts'],
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
    testTimeout: 180_000,
    hookTimeout: 120_000,
  },
});
