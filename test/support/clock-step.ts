import { fileURLToPath } from 'node:url';

/*
 * The environment that runs a fraudctl process with its wall clock stepped by `stepMs` after
 * its first reading (clock-step.mjs): what a test needs to show that deadlines and waits do not
 * follow the wall clock, without stepping the machine's.
 */

const PRELOAD = fileURLToPath(new URL('./clock-step.mjs', import.meta.url));

export function clockStepEnv(stepMs: number): Record<string, string> {
  return { NODE_OPTIONS: `--import ${PRELOAD}`, FRAUDCTL_TEST_CLOCK_STEP_MS: String(stepMs) };
}
