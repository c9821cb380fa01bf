import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { byLine, makeLines, readResults } from '../support/batch-events.js';
import { cliEnv } from '../support/cli.js';
import { runInProcess } from '../support/in-process-cli.js';
import { startPlainEventServer, type PlainServer, type PlainServerOptions } from '../support/plain-event-server.js';
import { tempDir } from '../support/sandbox.js';

/*
 * The duplicate check concludes "not stored" only from the service's own
 * not-found. Against servers that store every POST (no replay by id) and lose answers after
 * storing: one without the risk-assessment route (its 404 there is ROUTE_NOT_FOUND; the check
 * must not depend on that route), and one behind a proxy whose 404s are HTML (the check cannot
 * tell, so the line is UNKNOWN and nothing is sent twice). Run in-process through main: nothing
 * here needs a process of its own.
 */

const tmp = tempDir('fraudctl-not-stored-');
const servers: PlainServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await tmp.remove();
});

async function server(options: PlainServerOptions): Promise<PlainServer> {
  const s = await startPlainEventServer(options);
  servers.push(s);
  return s;
}

async function batch(target: PlainServer, prefix: string, count: number) {
  const input = join(tmp.dir, `${prefix}.jsonl`);
  const out = join(tmp.dir, `${prefix}-results.jsonl`);
  writeFileSync(input, `${makeLines(prefix, count).join('\n')}\n`);
  const env = cliEnv({
    HOME: tmp.dir,
    XDG_CONFIG_HOME: join(tmp.dir, 'config'),
    XDG_DATA_HOME: join(tmp.dir, 'data'),
    FRAUDCTL_BASE_URL: target.url,
    FRAUDCTL_API_KEY: 'plain-key',
  });
  const result = await runInProcess(['submit', input, '--out', out, '--concurrency', '16'], env);
  const { lines, repeated } = byLine(readResults(out));
  expect(repeated).toEqual([]);
  expect(lines.size).toBe(count);
  const ids = Array.from({ length: count }, (_, i) => `${prefix}-${i + 1}`);
  return { result, lines, stored: ids.map((id) => target.stored.get(id) ?? 0) };
}

describe('a batch whose answers are lost after storing', () => {
  it('against a service without the risk-assessment route: every event stored exactly once, every line decided', async () => {
    const target = await server({ without: ['assessment'], faults: { resetAfter: 0.05, timeoutAfter: 0.05 }, seed: 5 });
    const { result, lines, stored } = await batch(target, 'no-ra', 2_000);
    expect(result.code, result.stderr).toBe(0);
    expect(stored.filter((c) => c !== 1)).toEqual([]);
    expect([...lines.values()].filter((r) => r.outcome !== 'DECIDED')).toEqual([]);
    // The faults happened, and the lines whose answer was lost were settled by the check.
    const lost = target.faults.resetAfter + target.faults.timeoutAfter;
    expect(lost).toBeGreaterThan(100);
    expect([...lines.values()].filter((r) => r.attempts > 1).length).toBeGreaterThanOrEqual(lost);
  }, 90_000);

  it('behind a proxy whose 404s are HTML: lost answers are UNKNOWN with the reason, and nothing is stored twice', async () => {
    const target = await server({
      without: ['summary'],
      htmlNotFound: true,
      faults: { resetBefore: 0.03, resetAfter: 0.05, timeoutAfter: 0.05 },
      seed: 9,
    });
    const { result, lines, stored } = await batch(target, 'html-404', 2_000);
    expect(result.code).toBe(1);
    expect(stored.filter((c) => c > 1)).toEqual([]);
    const unknown = [...lines.values()].filter((r) => r.outcome === 'UNKNOWN');
    const { resetBefore, resetAfter, timeoutAfter } = target.faults;
    expect(unknown).toHaveLength(resetBefore + resetAfter + timeoutAfter);
    expect(unknown.length).toBeGreaterThan(100);
    for (const r of unknown) expect(r).toMatchObject({ errorType: 'NOT_THE_SERVICE', status: 404 });
    expect([...lines.values()].filter((r) => r.outcome !== 'UNKNOWN' && r.outcome !== 'DECIDED')).toEqual([]);
    // The summary says why: the check got an answer that is not the service's.
    expect(result.stderr).toMatch(/unknown\s+[\d,]+\s+sent, and whether they were stored cannot be told/);
    expect(result.stderr).toMatch(
      /line \d+: sent, but whether it was stored cannot be told \(not sent again\): GET http:\/\/127\.0\.0\.1:\d+\/event\/html-404-\d+ answered 404 with an HTML page titled "404 Not Found"/,
    );
  }, 90_000);

  it('a wrong base path: the first line stops the batch with one clear reason, nothing counted as "not stored"', async () => {
    const target = await server({});
    const input = join(tmp.dir, 'wrong-base.jsonl');
    writeFileSync(input, `${makeLines('wrong-base', 50).join('\n')}\n`);
    const env = cliEnv({
      HOME: tmp.dir,
      XDG_CONFIG_HOME: join(tmp.dir, 'config'),
      FRAUDCTL_BASE_URL: `${target.url}/v2`,
      FRAUDCTL_API_KEY: 'plain-key',
    });
    const result = await runInProcess(['submit', input, '--concurrency', '1'], env);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('stopped: the URL does not answer as the fraud-screening service');
    expect(result.stderr).toMatch(
      /error: POST http:\/\/127\.0\.0\.1:\d+\/v2\/event answered 404 with the code ROUTE_NOT_FOUND/,
    );
    expect(target.processed()).toBe(0);
  });
});
