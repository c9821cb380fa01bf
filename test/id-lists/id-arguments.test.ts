import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeServer, type FakeServer } from '../support/fake-server.js';
import { cliEnv, runCli } from '../support/cli.js';
import { tempDir } from '../support/sandbox.js';

/*
 * An empty event id, in every command that takes ids, is a usage error (exit 2) and nothing is
 * sent: checked against a server that records every request it gets.
 */

let server: FakeServer;
const tmp = tempDir('fraudctl-empty-id-');
beforeAll(async () => {
  server = await startFakeServer();
});
afterAll(async () => {
  await server.close();
  await tmp.remove();
});
const env = () =>
  cliEnv({
    HOME: tmp.dir,
    XDG_CONFIG_HOME: `${tmp.dir}/config`,
    FRAUDCTL_BASE_URL: server.url,
    FRAUDCTL_API_KEY: 'k-test-0123456789',
  });

describe('an empty event id', () => {
  it.each([
    [['show', ''], 'the event id is empty'],
    [['show', '  '], 'the event id is empty'],
    [['show', 'ord-1', '', '--json'], 'event id 2 of 2 is empty'],
    [['alerts', ''], 'the event id is empty'],
    [['set-state', '', '--state', 'APPROVED', '--yes'], 'the event id is empty'],
    [['review', 'ord-1', ''], 'event id 2 of 2 is empty'],
  ])('fraudctl %j: a usage error naming it (exit 2), no request', async (args, message) => {
    const before = server.requests.length;
    const result = await runCli(args, { env: env() });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toMatch(new RegExp(`^error: ${message}: it names no event, so nothing was sent$`, 'm'));
    expect(result.stderr).toContain('an empty argument is often a shell variable that is not set');
    expect(result.stdout).toBe('');
    expect(server.requests.length).toBe(before);
  });
});
