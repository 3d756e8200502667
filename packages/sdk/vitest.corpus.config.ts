// The Chromium suites, in Node, apart from the unit tests: the labelled corpus (test/corpus, one
// long test) and the friction clips (test/clips).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/corpus/**/*.test.ts', 'test/clips/**/*.test.ts'],
    environment: 'node',
    testTimeout: 600_000,
    hookTimeout: 60_000,
  },
});
