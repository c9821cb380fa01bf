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
 * the factor V8 grows the new space by (default 2), which it reads at each growth: once the new
 * space has reached YOUNG_GENERATION_CAP_BYTES, the factor becomes 1 and the new space stays that
 * size. Measured with bench:bulk over 100,000 ids: Node 24 208 → 115 MB, Node 26 146 → 122 MB,
 * flat. The factor stays 1 for the rest of the process: V8 could shrink the new space and then
 * not grow it back, but a 12-second idle pause after a full-size run left it at its size on Node
 * 20, 24 and 26; and allowing growth again after a shrink let the new space pass the cap (the
 * garbage collections are reported after the fact, and V8's sizes are not powers of two).
 * Written by hand because no package does this; test/batch/young-generation.test.ts checks on
 * each Node version CI runs that the cap holds and that, without it, the same allocation grows
 * the new space beyond it.
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
