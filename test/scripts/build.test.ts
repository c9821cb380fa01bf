import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DIST = join(ROOT, 'dist');

// Beside dist/, at its depth: esbuild's chunk names hash the paths from the output directory.
const out = join(ROOT, `.build-check-${process.pid}`);
afterAll(() => rmSync(out, { recursive: true, force: true, maxRetries: 5 }));

// The build on this platform (on Windows it once named chunks with backslashes, found none of
// esbuild's names and failed): a second build writes the same chunks as the one npm test made.
it('the build runs here and writes the same code as dist/', async () => {
  await promisify(execFile)(process.execPath, ['scripts/build.mjs', '--outdir', out], { cwd: ROOT });
  const code = (dir: string) =>
    readdirSync(dir)
      .filter((f) => f.endsWith('.js'))
      .sort();
  expect(code(out)).toEqual(code(DIST));
  expect(code(out).length).toBeGreaterThan(3);
  for (const file of code(out)) expect(readFileSync(join(out, file)), file).toEqual(readFileSync(join(DIST, file)));
  // Built-ins are taken with process.getBuiltinModule (scripts/build.mjs), never imported.
  expect(readFileSync(join(out, 'main.js'), 'utf8')).not.toMatch(/import[^;]*from"node:/);
}, 60_000);
