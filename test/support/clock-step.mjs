/*
 * A wall clock that is stepped, for a fraudctl process under test: preloaded with
 * `NODE_OPTIONS=--import <this file>` (see clockStepEnv in clock-step.ts). Date.now() answers
 * the real time at its first call, then the real time plus FRAUDCTL_TEST_CLOCK_STEP_MS (negative:
 * stepped back) from the second call on, as if an NTP step or an administrator's `date -s` came
 * right after the command read the clock once. The machine's clock is never touched.
 * (This file is read by the test process only through NODE_OPTIONS; the product never reads it.)
 */
const step = Number(process.env.FRAUDCTL_TEST_CLOCK_STEP_MS ?? '0');
const realNow = Date.now;
let calls = 0;
Date.now = () => realNow() + (++calls > 1 ? step : 0);
