import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

/*
 * docs/performance.md is written by `npm run bench:docs` (scripts/bench-docs.mjs): the template's
 * hand-written text, and between each pair of markers the section a benchmark printed with
 * --markdown. Here the generator runs for real in its tiny mode (one bench, tiny sizes), and the
 * committed page is checked for the shape the generator gives it. Figures are never compared:
 * they are measurements of a machine.
 */

const ROOT = path.resolve(import.meta.dirname, '..');
const GENERATOR = path.join(ROOT, 'scripts/bench-docs.mjs');
const TEMPLATE = readFileSync(path.join(ROOT, 'scripts/bench/performance.template.md'), 'utf8');
const NAMES = ['sandbox', 'batch', 'show', 'bulk', 'startup', 'review'];
const run = promisify(execFile);

const open = (name: string) => `<!-- bench:${name} -->`;
const close = (name: string) => `<!-- /bench:${name} -->`;

/** The page with each section's content taken out (the markers kept): what must equal the template. */
function handWritten(text: string): string {
  let out = text;
  for (const name of NAMES) {
    const start = out.indexOf(open(name));
    const end = out.indexOf(close(name));
    if (start !== -1 && end > start) out = `${out.slice(0, start + open(name).length)}\n${out.slice(end)}`;
  }
  return out;
}

/** Each section's content, checking that its markers are there once each, in the page's order. */
function sections(text: string): Record<string, string> {
  const found: Record<string, string> = {};
  let after = 0;
  for (const name of NAMES) {
    expect(text.split(open(name)).length - 1, `${open(name)} once`).toBe(1);
    expect(text.split(close(name)).length - 1, `${close(name)} once`).toBe(1);
    const start = text.indexOf(open(name));
    const end = text.indexOf(close(name));
    expect(start, `${name}'s markers in order, after the previous section`).toBeGreaterThan(after);
    expect(end).toBeGreaterThan(start);
    found[name] = text.slice(start + open(name).length, end).trim();
    after = end;
  }
  return found;
}

/** The cells of a table row, split on the pipes that are not escaped. */
const cells = (row: string) =>
  row
    .trim()
    .slice(1, -1)
    .split(/(?<!\\)\|/);

/** A measured section: a heading, the machine and the moment, the parameters, and well-formed tables. */
function expectMeasured(name: string, body: string) {
  expect(body, `${name}: a heading`).toMatch(/^### `npm run bench:[a-z]+`\n/);
  expect(body).toMatch(/^- Machine: \d+ × .+; .+$/m);
  expect(body).toMatch(/^- Node v\d+\.\d+\.\d+; \d{4}-\d\d-\d\d \d\d:\d\d UTC/m);
  expect(body).toMatch(
    /^- Load average \(1, 5, 15 min\) at the start [\d.]+ [\d.]+ [\d.]+, at the end [\d.]+ [\d.]+ [\d.]+$/m,
  );
  expect(body).toMatch(/^- Parameters: \S.*$/m);
  const tables = body.split(/\n\s*\n/).filter((block) => block.startsWith('|'));
  expect(tables.length, `${name}: at least one table`).toBeGreaterThan(0);
  for (const table of tables) {
    const [header, separator, ...rows] = table.split('\n');
    expect(separator, `${name}: a table's second line is its separator`).toMatch(/^\|(:?-{3,}:?\|)+$/);
    expect(rows.length, `${name}: a table with rows`).toBeGreaterThan(0);
    const width = cells(header!).length;
    expect(cells(separator!)).toHaveLength(width);
    for (const row of rows) expect(cells(row), `${name}: ${row}`).toHaveLength(width);
  }
}

describe('the generator, in its tiny mode', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fraudctl-bench-docs-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it(
    'writes the template with one bench measured between its markers, the others marked as not measured',
    { timeout: 180_000 },
    async () => {
      const out = path.join(dir, 'performance.md');
      await run(process.execPath, [GENERATOR, '--only', 'startup', '--tiny', '--out', out], {
        cwd: ROOT,
        timeout: 170_000,
      });
      const page = readFileSync(out, 'utf8');
      expect(handWritten(page)).toBe(handWritten(TEMPLATE));
      const found = sections(page);
      expectMeasured('startup', found.startup!);
      expect(found.startup).toMatch(/^- Parameters: BENCH_RUNS=1,/m);
      for (const name of NAMES.filter((n) => n !== 'startup'))
        expect(found[name]).toBe(`_Not measured yet: \`npm run bench:docs -- --only ${name}\`._`);
    },
  );

  it('refuses a bench it does not have, in one line, with exit 2 and nothing written', async () => {
    const out = path.join(dir, 'refused.md');
    const result = await run(process.execPath, [GENERATOR, '--only', 'startup,nope', '--out', out], {
      cwd: ROOT,
    }).catch((error: { code: number; stderr: string }) => error);
    expect('code' in result ? result.code : 0).toBe(2);
    expect(result.stderr).toMatch(
      /^bench-docs: no bench named nope; they are sandbox, batch, show, bulk, startup, review\nusage: /,
    );
    expect(() => readFileSync(out)).toThrow();
  });
});

it("docs/performance.md is the template with every bench's generated section, each well-formed", () => {
  const page = readFileSync(path.join(ROOT, 'docs/performance.md'), 'utf8');
  expect(handWritten(page), 'edit scripts/bench/performance.template.md and run `npm run bench:docs`').toBe(
    handWritten(TEMPLATE),
  );
  const found = sections(page);
  for (const name of NAMES) expectMeasured(name, found[name]!);
});
