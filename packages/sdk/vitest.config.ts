import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The Chromium suites (the corpus, the clips) have their own run: `npm run corpus` (vitest.corpus.config.ts).
    exclude: ['test/corpus/**', 'test/clips/**'],
    environment: 'happy-dom',
    pool: 'forks',
    maxWorkers: 2,
  },
});
