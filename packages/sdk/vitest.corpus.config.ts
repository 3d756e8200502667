// The labelled corpus in Chromium (test/corpus): one long test in Node, apart from the unit tests.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/corpus/**/*.test.ts'],
    environment: 'node',
    testTimeout: 600_000,
    hookTimeout: 60_000,
  },
});
