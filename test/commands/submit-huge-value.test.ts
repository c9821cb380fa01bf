import { createWriteStream, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readResults } from '../support/batch-events.js';
import { cliEnv, runCli } from '../support/cli.js';
import { runInProcess } from '../support/in-process-cli.js';
import { peakMemoryEnv, peakRss } from '../support/peak-memory.js';
import { startPlainEventServer, type PlainServer } from '../support/plain-event-server.js';
import { tempDir } from '../support/sandbox.js';
import { notUnderWine } from '../support/prerequisites.js';

/*
 * One very large JSON value outside JSON Lines: the service takes at most
 * 1 MiB per event, so such a value is refused for that reason, with memory bounded however large
 * it is (500 MB took 1.2 GB; 1.1 GB came out as a syntax error). The file is written as a stream,
 * never held by the test, and the process's peak RSS is its own high-water mark at exit (so that
 * run is a process; the other runs in-process through main).
 */

const MiB = 1024 * 1024;
const tmp = tempDir('fraudctl-huge-');
let server: PlainServer;
beforeAll(async () => {
  server = await startPlainEventServer();
});
afterAll(async () => {
  await server.close();
  await tmp.remove();
});
const env = (extra: Record<string, string> = {}) =>
  cliEnv({
    HOME: tmp.dir,
    XDG_CONFIG_HOME: join(tmp.dir, 'config'),
    XDG_DATA_HOME: join(tmp.dir, 'data'),
    FRAUDCTL_BASE_URL: server.url,
    FRAUDCTL_API_KEY: 'plain-key',
    ...extra,
  });

/** Writes `{"id":ID,"amount":1,"blob":"aaa…"}` with a blob of `blobBytes`, a MiB at a time; its size in bytes. */
async function writeHugeEvent(path: string, id: string, blobBytes: number): Promise<number> {
  const out = createWriteStream(path);
  const head = `{"id":"${id}","amount":1,"blob":"`;
  const piece = Buffer.alloc(MiB, 'a');
  out.write(head);
  for (let left = blobBytes; left > 0; left -= MiB) {
    if (!out.write(left >= MiB ? piece : piece.subarray(0, left))) await once(out, 'drain');
  }
  out.end('"}\n');
  await once(out, 'finish');
  return head.length + blobBytes + 2;
}

describe('one value larger than the service takes', () => {
  it('256 MiB: refused as too large, with the reason on one line, and the process never holds it (peak RSS under 160 MiB)', async () => {
    notUnderWine(
      'the bound of 160 MiB is the peak RSS on Linux; under Wine the peak working set of node.exe was 162 MiB for this run (the 256 MiB value itself was never held)',
    );
    const input = join(tmp.dir, 'huge.json');
    const bytes = await writeHugeEvent(input, 'huge-1', 256 * MiB);
    const out = join(tmp.dir, 'huge-results.jsonl');
    const peak = join(tmp.dir, 'peak');
    const result = await runCli(['submit', input, '--out', out], { env: env(peakMemoryEnv(peak)), timeoutMs: 120_000 });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stderr).toContain(`\n  line 1: too large (${bytes} bytes; the limit is ${MiB})\n`);
    expect(readResults(out)).toMatchObject([
      { line: 1, id: 'huge-1', outcome: 'REJECTED', errorCodes: ['TOO_LARGE'], attempts: 0 },
    ]);
    expect(server.answers).toEqual([]);
    expect(peakRss(peak)).toBeLessThan(160 * MiB);
  }, 180_000);

  it('one event over 1 MiB given alone: refused before sending, one line and a hint, exit 2', async () => {
    const input = join(tmp.dir, 'two-mib.json');
    const blob = 2 * MiB;
    writeFileSync(input, JSON.stringify({ id: 'big-2', amount: 1, blob: 'b'.repeat(blob) }, null, 2));
    const result = await runInProcess(['submit', input], env());
    expect(result.code).toBe(2);
    // Sent as the file holds it (pretty-printed): its bytes.
    const sent = Buffer.byteLength(JSON.stringify({ id: 'big-2', amount: 1, blob: 'b'.repeat(blob) }, null, 2));
    expect(result.stderr).toBe(
      `error: ${input} holds an event of ${sent.toLocaleString('en-US')} bytes as sent; the service accepts at most 1,048,576 (1 MiB) per event, so it cannot be sent\n` +
        'make the event smaller (long free text, many items) and submit it again\n',
    );
    expect(server.answers).toEqual([]);
  });
});
