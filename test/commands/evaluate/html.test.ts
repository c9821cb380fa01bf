import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../../src/commands/evaluate/run.js';
import type { EvaluationReport } from '../../../src/commands/evaluate/report.js';
import { describeNeeding, missing } from '../../support/prerequisites.js';
import { tempDir } from '../../support/sandbox.js';
import { HEADER, options, resultLine, testDeps, writeFile } from './evaluate-harness.js';

/*
 * --html FILE: one self-contained page with the --json report's figures, charts as SVG drawn in
 * Node; opened in a real browser (Debian's chromium, headless, driven by playwright-core), it
 * renders with no console error, fetches nothing, and prints.
 */

const tmp = tempDir('fraudctl-evaluate-html-');
afterAll(() => tmp.remove());

const lines = [
  HEADER,
  ...Array.from({ length: 60 }, (_, i) => {
    const score = (i * 13) % 101;
    const action = score >= 70 ? 'DECLINE' : score >= 30 ? 'REVIEW' : 'APPROVE';
    return resultLine(
      i + 1,
      `h-${i}<b>`,
      action,
      score,
      score >= 30 ? ['high_amount', 'x<script>'] : [],
      5 * i,
      `2026-11-${String(10 + (i % 9)).padStart(2, '0')}T08:00:00Z`,
    );
  }),
];
const results = writeFile(tmp.dir, 'results.jsonl', lines);
const labels = writeFile(tmp.dir, 'labels.csv', [
  'id',
  ...Array.from({ length: 60 }, (_, i) => i)
    .filter((i) => i % 4 === 0)
    .map((i) => `"h-${i}<b>"`),
  'not-here',
]);
let page = '';
let json: EvaluationReport;

beforeAll(async () => {
  const html = join(tmp.dir, 'report.html');
  const d = testDeps();
  await run(options({ results: [results], labels, by: 'day', html }), d);
  page = readFileSync(html, 'utf8');
  json = JSON.parse(d.written.stdout) as EvaluationReport;
  expect(d.written.stderr).toBe(`report written to ${html}\n`);
}, 60_000);

describe('evaluate --html', () => {
  it('is one file: SVG charts inline, no script to run, nothing to fetch, what came from files escaped', () => {
    expect(page.match(/<svg /g)?.length).toBe(3);
    // The only script element is the report as data, which no browser runs.
    expect([...page.matchAll(/<script\b[^>]*>/g)].map((m) => m[0])).toEqual([
      '<script type="application/json" id="fraudctl-evaluate">',
    ]);
    const withoutNamespaces = page.replace(/xmlns(?::\w+)?="[^"]*"/g, '');
    expect(withoutNamespaces).not.toMatch(/(?:src|href)\s*=|url\(|@import|https?:\/\//i);
    expect(page).toContain('x&#60;script&#62;');
    expect(page).not.toContain('x<script>');
  });

  it('holds the same figures as --json', () => {
    const data = /<script type="application\/json" id="fraudctl-evaluate">(.*)<\/script>/s.exec(page)![1]!;
    expect(JSON.parse(data)).toEqual(json);
    // And shows them: the matrix's DECLINE row, every threshold of the sweep.
    expect(page).toMatch(
      new RegExp(`<td>DECLINE</td><td class="n">${json.decisions.DECLINE.fraud + json.decisions.DECLINE.unknown}</td>`),
    );
    expect(page.match(/<tr><td>\d+( \((review|decline)\))?<\/td>/g)).toHaveLength(101);
  });

  it('a directory that is not there: one error, and no file left behind', async () => {
    const target = join(tmp.dir, 'no', 'report.html');
    await expect(run(options({ results: [results], labels, html: target }), testDeps())).rejects.toMatchObject({
      message: `cannot write the HTML report ${target}: no such directory`,
      hint: 'give --html a file in a directory that exists',
      exitCode: 1,
    });
    expect(readdirSync(tmp.dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});

describeNeeding(['chromium'], 'evaluate --html in a browser', () => {
  it('renders in headless chromium with no console error and no request, and prints', async () => {
    if (missing('chromium')) return;
    const { chromium } = await import('playwright-core');
    const profile = mkdtempSync(join(tmp.dir, 'chromium-'));
    const browser = await chromium.launchPersistentContext(profile, {
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    });
    try {
      const tab = await browser.newPage();
      const problems: string[] = [];
      const requests: string[] = [];
      tab.on('console', (m) => void (m.type() === 'error' && problems.push(m.text())));
      tab.on('pageerror', (e) => void problems.push(e.message));
      tab.on('request', (r) => void requests.push(r.url()));
      const url = pathToFileURL(join(tmp.dir, 'report.html')).href;
      await tab.goto(url, { waitUntil: 'load' });
      expect(problems).toEqual([]);
      expect(requests).toEqual([url]);
      expect(await tab.locator('svg').count()).toBe(3);
      const box = await tab.locator('svg').first().boundingBox();
      expect(box!.width).toBeGreaterThan(200);
      expect(await tab.locator('h2').allTextContents()).toEqual([
        'Decisions and outcomes',
        'Rules',
        'Score sweep',
        'Over time, by day (UTC)',
      ]);
      const pdf = await tab.pdf({ format: 'A4' });
      expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    } finally {
      await browser.close();
    }
  }, 60_000);
});
