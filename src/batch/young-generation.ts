import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';

/*
 * A long run (a batch, many state changes) allocates short-lived objects for every request, and
 * V8 answers a steady allocation rate by doubling its young generation after scavenges, up to a
 * limit that depends on the Node version: the new space reaches 32 MB on Node 20 and 22, 64 MB on
 * Node 26 and 128 MB on Node 24, which alone took set-state over 100,000 ids to a peak RSS of
 * 208 MB on Node 24 (bench:bulk), with 11 MB of it live. A bigger young generation buys nothing
 * here: the objects die young whatever its size.
 *
 * The limit (--max-semi-space-size) is fixed when V8 starts and cannot be changed from inside the
 * process, and a user should not have to pass NODE_OPTIONS. What can be changed at any time is
 * the factor V8 grows the new space by, which it reads at each growth: once the new space has
 * reached YOUNG_GENERATION_CAP_BYTES, the factor becomes 1 and the new space stays that size.
 * Measured with bench:bulk over 100,000 ids: Node 24 208 → 114 MB, Node 26 146 → 124 MB, flat,
 * at the same rate. Written by hand because no package does this; test/batch/young-generation
 * checks on each Node version CI runs that the cap holds and that, without it, the same
 * allocation does grow the new space beyond it.
 */

export const YOUNG_GENERATION_CAP_BYTES = 16 * 1024 * 1024;

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
 * process: checked after each garbage collection until the new space reaches the cap. Idempotent.
 */
export function capYoungGeneration(): void {
  if (capped || observer !== null || capIfGrown()) return;
  observer = new PerformanceObserver(() => {
    capIfGrown();
  });
  observer.observe({ entryTypes: ['gc'] });
}
