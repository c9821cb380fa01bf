import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { byLine, makeLines, readResults } from '../support/batch-events.js';
import { TERMINAL_CONTROLS } from '../support/cli-against-sandbox.js';
import { useSandboxInProcess } from '../support/in-process-cli.js';
import { startStaticFileServer, type StaticServer } from '../support/static-file-server.js';

/*
 * A batch pointed at something that is not the service stops as a refused
 * key does: no new lines once the first foreign answer is in, the lines in flight recorded,
 * one line saying the URL is not the fraud-screening service, exit 1 — and --resume, once the
 * URL is right, finishes the batch with one result per line.
 */

const cli = useSandboxInProcess();
const LINES = 60;
const CONCURRENCY = 4;

let files: StaticServer;
let python: StaticServer;
beforeAll(async () => {
  files = await startStaticFileServer();
  // As `python3 -m http.server`: 501 for a POST or a PATCH.
  python = await startStaticFileServer(undefined, { unsupportedMethods: true });
});
afterAll(async () => {
  await files.close();
  await python.close();
});

describe.each([
  ['a static file server (404, an HTML page)', () => files, /answered 404 with an HTML page titled "Error response"/],
  [
    'a server answering 501 (python3 -m http.server)',
    () => python,
    /answered 501 with an HTML page titled "Error response"/,
  ],
])('submit batch against %s', (name, server, got) => {
  it('stops at the first answers: no new lines, those in flight recorded, one line naming the URL, exit 1; --resume at the right URL finishes', async () => {
    const prefix = name.startsWith('a static') ? 'nts-files' : 'nts-501';
    const input = join(cli.dir, `${prefix}.jsonl`);
    writeFileSync(input, `${makeLines(prefix, LINES).join('\n')}\n`);
    const out = join(cli.dir, `${prefix}-results.jsonl`);
    const posts = () => server().requests.filter((r) => r === '/event').length;
    const before = posts();

    const wrong = await cli.run([
      'submit',
      input,
      '--out',
      out,
      '--concurrency',
      String(CONCURRENCY),
      '--base-url',
      server().url,
    ]);
    expect(wrong.code, wrong.stderr).toBe(1);
    const sent = posts() - before;
    // Only the lines already in flight when the first answer came: at most one per request slot.
    expect(sent).toBeGreaterThan(0);
    expect(sent).toBeLessThanOrEqual(CONCURRENCY);
    const recorded = readResults(out);
    expect(recorded).toHaveLength(sent);
    for (const r of recorded) expect(r).toMatchObject({ outcome: 'FAILED', errorType: 'NOT_THE_SERVICE' });
    const errorLines = wrong.stderr.split('\n').filter((l) => l.startsWith('error: '));
    expect(errorLines).toHaveLength(1);
    expect(errorLines[0]).toMatch(
      /that is not the fraud-screening service's answer, so this URL is not the service, or not its base path/,
    );
    expect(errorLines[0]).toMatch(got);
    expect(wrong.stderr).toContain('stopped: the URL does not answer as the fraud-screening service');
    expect(wrong.stderr).not.toMatch(TERMINAL_CONTROLS);
    expect(wrong.stderr).not.toMatch(/^\s+at /m);

    const resumed = await cli.run(['submit', input, '--out', out, '--resume', '--concurrency', String(CONCURRENCY)]);
    expect(resumed.code, resumed.stderr).toBe(0);
    const { lines, repeated } = byLine(readResults(out));
    expect(repeated).toEqual([]);
    expect(lines.size).toBe(LINES);
    for (const r of lines.values()) expect(r.outcome).toBe('DECIDED');
  });
});
