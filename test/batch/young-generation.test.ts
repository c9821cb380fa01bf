import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { YOUNG_GENERATION_CAP_BYTES } from '../../src/batch/young-generation.js';
import { tempDir } from '../support/sandbox.js';

/*
 * The cap changes a V8 flag for the whole process, so it is tried in a fresh Node process of
 * the version running the suite (the test process's own new space has grown already): the
 * module, bundled as the CLI bundles it, then a steady allocation of short-lived objects with a
 * few survivors, in chunks with a turn of the event loop between them (a long run's pattern: the
 * cap is applied after a garbage collection). The same allocation without the cap is the
 * control: it must grow the new space past the cap on this Node, or the first test would prove
 * nothing.
 */

const tmp = tempDir('fraudctl-young-');
afterAll(() => tmp.remove());

const DRIVER = `
import { getHeapSpaceStatistics } from 'node:v8';
import { pathToFileURL } from 'node:url';
const { capYoungGeneration } = await import(pathToFileURL(process.argv[2]).href);
if (process.argv[3] === 'cap') capYoungGeneration();
const newSpace = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
let largest = newSpace();
const kept = [];
let last;
for (let round = 0; round < 200; round++) {
  for (let i = 0; i < 50000; i++) {
    last = { n: i, text: 'event-' + i, pair: [i, round] };
    if (i % 50 === 0) kept.push(last);
  }
  if (kept.length > 20000) kept.splice(0, 10000);
  await new Promise((resolve) => setImmediate(resolve));
  largest = Math.max(largest, newSpace());
}
process.stdout.write(JSON.stringify({ largest, kept: kept.length, last: last.n }));
`;

let moduleFile = '';
let driverFile = '';

beforeAll(async () => {
  moduleFile = join(tmp.dir, 'young-generation.mjs');
  await build({
    entryPoints: [join(import.meta.dirname, '../../src/batch/young-generation.ts')],
    bundle: true,
    format: 'esm',
    platform: 'node',
    outfile: moduleFile,
    logLevel: 'silent',
  });
  driverFile = join(tmp.dir, 'driver.mjs');
  writeFileSync(driverFile, DRIVER);
});

function largestNewSpace(mode: 'cap' | 'no-cap'): number {
  const out = execFileSync(process.execPath, [driverFile, moduleFile, mode], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '' },
  });
  return (JSON.parse(out) as { largest: number }).largest;
}

describe('capYoungGeneration', () => {
  it('keeps the new space at the cap under a steady allocation, where without it the same allocation grows the new space past it', () => {
    const without = largestNewSpace('no-cap');
    const withCap = largestNewSpace('cap');
    expect(without, `without the cap the new space grew to ${without} bytes`).toBeGreaterThan(
      YOUNG_GENERATION_CAP_BYTES,
    );
    expect(withCap, `with the cap the new space grew to ${withCap} bytes`).toBeLessThanOrEqual(
      YOUNG_GENERATION_CAP_BYTES,
    );
    expect(withCap).toBeGreaterThan(0);
  });
});
