/*
 * The environment that runs a fraudctl process with its wall clock stepped by `stepMs` after
 * its first reading (clock-step.mjs): what a test needs to show that deadlines and waits do not
 * follow the wall clock, without stepping the machine's.
 */

// A file: URL, not a path: on Windows --import takes C:\… for a URL scheme (ERR_UNSUPPORTED_ESM_URL_SCHEME).
const PRELOAD = new URL('./clock-step.mjs', import.meta.url).href;

export function clockStepEnv(stepMs: number): Record<string, string> {
  return { NODE_OPTIONS: `--import ${PRELOAD}`, FRAUDCTL_TEST_CLOCK_STEP_MS: String(stepMs) };
}
