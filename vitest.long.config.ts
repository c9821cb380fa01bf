import { defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.config.js';

/*
 * `npm run fuzz` and `npm run soak`: the same tests as the suite, at full length
 * (FRAUDCTL_LONG tells them; FRAUDCTL_FUZZ_RUNS / FRAUDCTL_SOAK_EVENTS override the counts).
 */
export default mergeConfig(
  base,
  defineConfig({
    test: { env: { FRAUDCTL_LONG: '1' }, testTimeout: 3_600_000, hookTimeout: 120_000 },
  }),
);
