import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliEnv, startCli } from '../support/cli.js';
import { tempDir } from '../support/sandbox.js';
import { useServer } from '../support/listen.js';
import { notOnWindows, ON_WINDOWS } from '../support/prerequisites.js';

/*
 * Ctrl-C while one event is on its way: the service may or may not have stored it. fraudctl says
 * so, says how to check, and exits 130 at once. A server that takes requests and never answers
 * stands in for a slow service.
 */

const tmp = tempDir('fraudctl-submit-int-');
const arrivals: Array<() => void> = [];
const nextArrival = () => new Promise<void>((resolve) => arrivals.push(resolve));
const server = useServer((req) => {
  req.resume();
  req.on('end', () => {
    for (const arrived of arrivals.splice(0)) arrived();
  });
});

afterAll(() => tmp.remove());

async function interrupt(event: object) {
  const file = join(tmp.dir, `event-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(event, null, 2));
  const arrived = nextArrival();
  const run = startCli(['submit', file], {
    env: cliEnv({
      HOME: tmp.dir,
      XDG_CONFIG_HOME: join(tmp.dir, 'c'),
      FRAUDCTL_BASE_URL: server.url,
      FRAUDCTL_API_KEY: 'k',
    }),
  });
  await arrived;
  const started = Date.now();
  run.child.kill('SIGINT');
  const result = await run.done;
  return { ...result, tookMs: Date.now() - started };
}

describe('Ctrl-C during a one-event submit', () => {
  it('says the event may or may not be stored and how to check it by its id, and exits 130 without waiting for the answer', async () => {
    notOnWindows(ON_WINDOWS.signal);
    const result = await interrupt({ id: 'ord-int-1', amount: 10, currency: 'EUR' });
    expect(result.code).toBe(130);
    expect(result.stderr).toMatch(
      /^error: interrupted: the event was sent, or about to be, and may or may not have been stored$/m,
    );
    expect(result.stderr).toMatch(/^check with: fraudctl show ord-int-1$/m);
    expect(result.stdout).toBe('');
    // Well before the 30 s request timeout: it does not wait for an answer that is not coming.
    expect(result.tookMs).toBeLessThan(10_000);
  });

  it('without an id, says there is nothing to check with', async () => {
    notOnWindows(ON_WINDOWS.signal);
    const result = await interrupt({ amount: 10, currency: 'EUR' });
    expect(result.code).toBe(130);
    expect(result.stderr).toMatch(/may or may not have been stored/);
    expect(result.stderr).toMatch(/no id to check with/);
  });
});
