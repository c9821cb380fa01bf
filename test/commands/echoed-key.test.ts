import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSessionLog } from '../../src/action-log/action-log.js';
import { cliEnv, runCli, type CliResult } from '../support/cli.js';
import { runInProcess } from '../support/in-process-cli.js';
import { startKeyEchoServer, type KeyEchoServer } from '../support/key-echo-server.js';
import { describeNeeding, missing } from '../support/prerequisites.js';
import { tempDir } from '../support/sandbox.js';
import { onTerminal } from '../support/script-terminal.js';
import { startSecretService, type SecretService } from '../support/secret-service.mjs';

/*
 * A server that echoes the API key back (in errorType, errorCodes, messages and X-Request-Id:
 * key-echo-server.ts): no command prints it, on stdout or stderr, as text or --json, whether the
 * key came from the environment or the credential store (SECURITY.md). doctor above all, whose
 * output is what a user pastes into a ticket. Commands run in-process (main, its streams and
 * exit code; a write past those streams fails the run, in-process-cli.ts), but for a key from the
 * credential store, whose library finds the session bus in the environment of the process it
 * runs in: those run as processes.
 */

const KEY = 'echoed-merchant-key-7c41d2';
const EXAMPLE = fileURLToPath(new URL('../../examples/review.json', import.meta.url));
const tmp = tempDir('fraudctl-echoed-key-');
const log = join(tmp.dir, 'actions.log');
const serverLog = join(tmp.dir, 'server-actions.log');
let server: KeyEchoServer;

const home = { HOME: tmp.dir, XDG_CONFIG_HOME: join(tmp.dir, 'config'), XDG_DATA_HOME: join(tmp.dir, 'data') };
const env = (extra: Record<string, string> = {}) =>
  cliEnv({ ...home, FRAUDCTL_BASE_URL: server.url, FRAUDCTL_API_KEY: KEY, ...extra });

beforeAll(async () => {
  server = await startKeyEchoServer();
  // An action log to read: a decision made on the embedded sandbox (history and report then ask the echoing server).
  expect((await runInProcess(['submit', EXAMPLE], cliEnv(home))).code).toBe(0);
  const decide = ['set-state', 'ord-1002', '--state', 'APPROVED', '--comments', 'checked', '--log', log];
  const decided = await runInProcess(decide, cliEnv(home));
  expect(decided.code, decided.stderr).toBe(0);
  // report compares a decision only with the service its line names: a decision at the echoing server.
  const context = {
    analyst: 'ann',
    host: 'desk',
    profile: 'default',
    service: server.url,
    version: '0',
    session: 's1',
  };
  const lines = await openSessionLog(serverLog, context);
  const change = {
    eventId: 'ord-1',
    action: 'approve',
    from: 'PENDING_REVIEW',
    to: 'APPROVED',
    comments: null,
  } as const;
  await lines.append({ ...change, requestId: null, outcome: 'sending', status: null });
  await lines.append({ ...change, requestId: 'r1', outcome: 'ok', status: 200 });
  await lines.close();
});
afterAll(async () => {
  await server.close();
  await tmp.remove();
});

/** Runs `args` and checks that the key reached the server and is nowhere in what the command printed. */
async function keptOut<R extends Pick<CliResult, 'stdout' | 'stderr'>>(run: () => Promise<R>): Promise<R> {
  const before = server.keysSeen.length;
  const result = await run();
  expect(server.keysSeen.slice(before), 'the command never sent the key to the echoing server').toContain(KEY);
  expect(result.stdout).not.toContain(KEY);
  expect(result.stderr).not.toContain(KEY);
  return result;
}

const COMMANDS: [string, () => string[]][] = [
  ['submit', () => ['submit', EXAMPLE]],
  ['show', () => ['show', 'ord-1']],
  ['show (a table of several)', () => ['show', 'ord-1', 'ord-2']],
  ['alerts', () => ['alerts', 'ord-1']],
  ['set-state', () => ['set-state', 'ord-1', '--state', 'APPROVED', '--comments', 'checked']],
  ['history', () => ['history', 'ord-1002', '--log', log]],
  ['report', () => ['report', '--log', serverLog]],
  ['doctor', () => ['doctor']],
];

describe('a server that echoes the key: no command prints it', () => {
  for (const [name, args] of COMMANDS) {
    for (const json of [false, true]) {
      it(`${name}${json ? ' --json' : ''}`, async () => {
        await keptOut(() => runInProcess([...args(), ...(json ? ['--json'] : [])], env()));
      });
    }
  }

  it('doctor says what the server answered, with the key replaced', async () => {
    const text = await keptOut(() => runInProcess(['doctor'], env()));
    expect(text.code).toBe(1);
    const quoted = /^✗ service\s+GET \/event\/… answered 422 BAD_\[redacted\]: CODE_\[redacted\], \[redacted\],/m;
    expect(text.stdout).toMatch(quoted);
    const json = await keptOut(() => runInProcess(['doctor', '--json'], env()));
    const { checks } = JSON.parse(json.stdout) as { checks: { check: string; detail: string }[] };
    const service = checks.find((c) => c.check === 'service');
    expect(service?.detail).toContain('BAD_[redacted]');
  });

  for (const status of [401, 404]) {
    it(`doctor, when the echo is in a ${status} in the service's shape (the request id it shows too)`, async () => {
      const echoing = await startKeyEchoServer(status);
      const text = await runInProcess(['doctor'], env({ FRAUDCTL_BASE_URL: echoing.url }));
      const json = await runInProcess(['doctor', '--json'], env({ FRAUDCTL_BASE_URL: echoing.url }));
      expect(echoing.keysSeen).toContain(KEY);
      expect(text.stdout).toContain('request req-[redacted]');
      for (const r of [text, json]) expect(r.stdout + r.stderr).not.toContain(KEY);
    });
  }

  for (const json of [false, true]) {
    it(`login${json ? ' --json' : ''} (the key on stdin, checked against the server)`, async () => {
      const args = ['login', '--profile', 'echo', '--base-url', server.url, '--insecure-storage'];
      if (json) args.push('--json');
      const result = await keptOut(() => runInProcess(args, cliEnv(home), { input: `${KEY}\n` }));
      expect(result.code).not.toBe(0);
    });
  }

  it('review (on a terminal): the event it passes over', async () => {
    const before = server.keysSeen.length;
    const { screen } = await onTerminal(['review', 'ord-1', 'ord-2'], [], env());
    expect(server.keysSeen.slice(before)).toContain(KEY);
    expect(screen).toContain('[redacted]');
    expect(screen).not.toContain(KEY);
  });
});

const STORE_PROGRAMS = ['dbus-run-session', 'gnome-keyring-daemon', 'secret-tool'] as const;

describeNeeding([...STORE_PROGRAMS], 'a key from the credential store, echoed back', () => {
  let ss: SecretService;
  beforeAll(async () => {
    if (missing(...STORE_PROGRAMS)) return;
    ss = await startSecretService(join(tmp.dir, 'keyring'));
    const account = `echo@${server.url}`;
    const entry = ['service', 'fraudctl', 'username', account];
    const stored = await ss.secretTool(['store', '--label', 'fraudctl echo', ...entry], KEY);
    expect(stored.code).toBe(0);
    const dir = join(ss.home.XDG_CONFIG_HOME, 'fraudctl');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const config = { profiles: { echo: { baseUrl: server.url, credentialStore: { service: 'fraudctl', account } } } };
    writeFileSync(join(dir, 'config.json'), JSON.stringify(config), { mode: 0o600 });
  });
  afterAll(() => ss?.stop());

  for (const json of [false, true]) {
    it(`doctor${json ? ' --json' : ''}`, async () => {
      const args = ['doctor', '--profile', 'echo', ...(json ? ['--json'] : [])];
      const result = await keptOut(() => runCli(args, { env: cliEnv(ss.env) }));
      expect(result.stdout).toContain('BAD_[redacted]');
    });
  }
  it('show', async () => {
    await keptOut(() => runCli(['show', 'ord-1', '--profile', 'echo'], { env: cliEnv(ss.env) }));
  });
});
