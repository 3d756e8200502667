import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The Chromium corpus has its own run: `npm run corpus` (vitest.corpus.config.ts).
    exclude: ['test/corpus/**'],
    environment: 'happy-dom',
    pool: 'forks',
    maxWorkers: 2,
  },
});
