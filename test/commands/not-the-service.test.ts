import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TERMINAL_CONTROLS } from '../support/cli-against-sandbox.js';
import { useSandboxInProcess } from '../support/in-process-cli.js';
import { DEMO_KEY } from '../support/sandbox.js';
import { startStaticFileServer, type StaticServer } from '../support/static-file-server.js';

/*
 * Only the service's own answers count (contract.md "Tolerant is not
 * credulous"): a 404 that is an HTML page, or names a route, says "this URL is not the
 * fraud-screening service, or not its base path" — never "no such event" (exit 4) and never
 * "the key works" (login). Against a static file server (as `python3 -m http.server`) and
 * against the real sandbox under a wrong base path (its 404s there are ROUTE_NOT_FOUND).
 */

const cli = useSandboxInProcess();
const bare = { FRAUDCTL_API_KEY: '', FRAUDCTL_BASE_URL: '' };
const configFile = () => join(cli.dir, 'config', 'fraudctl', 'config.json');
const NOT_THE_SERVICE =
  /answered 404 with .*: that is not the fraud-screening service's answer, so this URL is not the service, or not its base path/;

let files: StaticServer;
beforeAll(async () => {
  files = await startStaticFileServer();
});
afterAll(() => files.close());

/** The sandbox, behind a base path it does not have. */
const wrongBase = () => `${cli.sb.url}/api/v2`;

function expectNotTheService(result: { code: number | null; stderr: string }, got: RegExp): void {
  expect(result.code, result.stderr).toBe(1);
  expect(result.stderr).toMatch(NOT_THE_SERVICE);
  expect(result.stderr).toMatch(got);
  expect(result.stderr).toMatch(/\ncheck (--base-url|the URL given with --base-url)/);
  expect(result.stderr).not.toMatch(/no event/);
  expect(result.stderr).not.toMatch(TERMINAL_CONTROLS);
  // One line and a hint: no stack.
  expect(result.stderr.trim().split('\n')).toHaveLength(2);
}

describe('login refuses to save a key for anything that answers 404 without being the service', () => {
  it('a static file server: says what came back, exit 1, saves nothing', async () => {
    const result = await cli.run(['login', '--profile', 'files', '--base-url', files.url], {
      input: `${DEMO_KEY}\n`,
      env: bare,
    });
    expectNotTheService(result, /an HTML page titled "Error response"/);
    expect(result.stderr).toMatch(
      /^error: nothing was saved: GET http:\/\/127\.0\.0\.1:\d+\/event\/fraudctl-login-check-/,
    );
    expect(result.stderr).not.toContain(DEMO_KEY);
    expect(existsSync(configFile())).toBe(false);
  });

  it('the right host with a wrong base path (ROUTE_NOT_FOUND): exit 1, saves nothing', async () => {
    const result = await cli.run(['login', '--profile', 'wrongbase', '--base-url', wrongBase()], {
      input: `${DEMO_KEY}\n`,
      env: bare,
    });
    expectNotTheService(result, /the code ROUTE_NOT_FOUND, which names a route, not an event/);
    expect(result.stderr).toContain('/api/v2/event/');
    expect(existsSync(configFile())).toBe(false);
  });

  it("the right base path still logs in (the service's own 404 for the probe)", async () => {
    const result = await cli.runProcess(['login', '--profile', 'right', '--base-url', cli.sb.url], {
      input: `${DEMO_KEY}\n`,
      env: bare,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('Logged in');
  });
});

describe('every other command: a bad answer (exit 1), never "no such event" (exit 4)', () => {
  it('show against a static file server', async () => {
    expectNotTheService(
      await cli.run(['show', 'ord-1', '--base-url', files.url]),
      /an HTML page titled "Error response"/,
    );
  });

  it('alerts and set-state against a static file server', async () => {
    expectNotTheService(await cli.run(['alerts', 'ord-1', '--base-url', files.url]), /an HTML page/);
    expectNotTheService(
      await cli.run(['set-state', 'ord-1', '--state', 'APPROVED', '--base-url', files.url]),
      /an HTML page/,
    );
  });

  it('show and submit with a wrong base path', async () => {
    expectNotTheService(await cli.run(['show', 'ord-1', '--base-url', wrongBase()]), /ROUTE_NOT_FOUND/);
    const event = join(cli.dir, 'one-event.json');
    writeFileSync(event, JSON.stringify({ id: 'ord-1002', amount: 10, currency: 'EUR' }));
    const submit = await cli.run(['submit', event, '--base-url', wrongBase()]);
    expectNotTheService(submit, /ROUTE_NOT_FOUND/);
    expect(submit.stderr).toContain('POST ');
  });

  it('the service\'s own 404 is still "no such event", exit 4', async () => {
    const result = await cli.run(['show', 'no-such-event-1']);
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(/no event "no-such-event-1" \(404 NOT_FOUND: EVENT_NOT_FOUND/);
  });
});
