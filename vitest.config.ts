import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // Two cores here: files in two workers, not more.
    maxWorkers: 2,
    // A Node warning fails the run; a collection after each file surfaces handles left to the
    // garbage collector (test/support/no-warnings.ts).
    setupFiles: ['test/support/no-warnings.ts'],
    execArgv: ['--expose-gc'],
  },
});
