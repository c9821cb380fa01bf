import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';

/*
 * A long run (a batch, many state changes) allocates short-lived objects for every request, and
 * V8 answers a steady allocation rate by doubling its young generation, up to a limit that
 * depends on the Node version and is fixed when V8 starts. A bigger young generation buys nothing
 * here (the objects die young), so once the new space has reached YOUNG_GENERATION_CAP_BYTES the
 * factor V8 grows it by, which it reads at each growth, becomes 1 for the rest of the process.
 * Why, with the figures and how to measure them: docs/decisions/young-generation-cap.md.
 * Written by hand because no package does this; test/batch/young-generation.test.ts checks on
 * each Node version CI runs that the cap holds and that, without it, the new space grows past it.
 *
 * A V8 flag that does not exist is reported by V8 on stderr, not as an exception, so the cap is
 * applied only on the Node majors it was measured and tested on; raise NEWEST_TESTED_MAJOR when
 * CI runs a newer one.
 */

export const YOUNG_GENERATION_CAP_BYTES = 16 * 1024 * 1024;
const OLDEST_TESTED_MAJOR = 20;
const NEWEST_TESTED_MAJOR = 26;

let observer: PerformanceObserver | null = null;
let capped = false;

function newSpaceBytes(): number {
  return getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;
}

function capIfGrown(): boolean {
  if (newSpaceBytes() < YOUNG_GENERATION_CAP_BYTES) return false;
  setFlagsFromString('--semi-space-growth-factor=1');
  capped = true;
  observer?.disconnect();
  observer = null;
  return true;
}

/**
 * Stops the young generation growing past YOUNG_GENERATION_CAP_BYTES for the rest of the
 * process: checked after each garbage collection until the new space reaches the cap.
 * Idempotent; nothing on a Node major it was not tested on.
 */
export function capYoungGeneration(): void {
  if (capped || observer !== null) return;
  const major = Number(process.versions.node.split('.')[0]);
  if (major < OLDEST_TESTED_MAJOR || major > NEWEST_TESTED_MAJOR) return;
  if (capIfGrown()) return;
  observer = new PerformanceObserver(() => {
    capIfGrown();
  });
  observer.observe({ entryTypes: ['gc'] });
}
