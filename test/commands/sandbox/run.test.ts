import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { run } from '../../../src/commands/sandbox/run.js';
import type { SandboxOptions } from '../../../src/commands/sandbox/options.js';
import { cliEnv } from '../../support/cli.js';
import { runInProcess } from '../../support/in-process-cli.js';
import { printingDeps, ran, type Ran } from '../../support/room-deps.js';
import { send, tempDir } from '../../support/sandbox.js';

/*
 * `sandbox serve` and `default-config` in this process: serve through run(options, deps), its
 * stop asked for by the test as a signal would ask for it (deps.waitForShutdown); refusals and
 * usage errors through main, for their one line and exit code. What needs the process (signals,
 * SIGKILL, a terminal that hangs up) is test/commands/sandbox.test.ts.
 */

const tmp = tempDir();
afterAll(() => tmp.remove());
const order = (id: string) => ({ id, amount: 42, currency: 'EUR', userEmail: `${id}@example.com` });

type ServeOptions = Extract<SandboxOptions, { verb: 'serve' }>;

interface Serving {
  url: string;
  written: { stdout: string; stderr: string };
  /** Asks it to stop as `signal` would; what the run ended with (code 0, or main's words and code). */
  stop(signal?: NodeJS.Signals): Promise<Ran>;
}

/** `sandbox serve --port 0 …` run in-process, once it listens (it has said where and waits for a stop). */
async function serve(options: Partial<ServeOptions> = {}, env: NodeJS.ProcessEnv = cliEnv()): Promise<Serving> {
  const deps = printingDeps();
  let stopWith: (signal: NodeJS.Signals) => void = () => {};
  let listening: () => void = () => {};
  const waiting = new Promise<void>((resolve) => (listening = resolve));
  const running = ran(
    run(
      { verb: 'serve', host: '127.0.0.1', port: 0, db: null, config: null, chaos: null, debug: false, ...options },
      {
        ...deps,
        env,
        waitForShutdown: () => {
          listening();
          return new Promise((resolve) => (stopWith = resolve));
        },
      },
    ),
    deps,
  );
  await Promise.race([
    waiting,
    running.then((r) => Promise.reject(new Error(`sandbox serve ended before listening: ${JSON.stringify(r)}`))),
  ]);
  const stop = (signal: NodeJS.Signals = 'SIGTERM') => {
    stopWith(signal);
    return running;
  };
  onTestFinished(() => stop().then(() => {}));
  return { url: /listening on (http:\/\/\S+)/.exec(deps.written.stdout)![1]!, written: deps.written, stop };
}

describe('fraudctl sandbox serve', () => {
  it('says where it listens and keeps its data, under XDG_DATA_HOME by default', async () => {
    const env = cliEnv({ XDG_DATA_HOME: join(tmp.dir, 'xdg-data'), HOME: tmp.dir });
    const serving = await serve({}, env);
    const dbPath = join(tmp.dir, 'xdg-data', 'fraudctl', 'sandbox.db');
    expect(serving.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(serving.written.stdout).toContain(`data:    ${dbPath}`);
    expect(serving.written.stdout).toContain(`openapi: ${serving.url}/openapi.json`);
    expect((await send(serving.url, 'POST', '/event', { body: order('xdg-1') })).status).toBe(201);
    const ended = await serving.stop('SIGTERM');
    expect(ended.code).toBe(0);
    expect(ended.stderr).toContain('sandbox stopped');
    expect(existsSync(dbPath)).toBe(true);
  });

  it('refuses a non-loopback address while the public default key is in use', async () => {
    const result = await runInProcess(['sandbox', 'serve', '--host', '0.0.0.0', '--db', ':memory:'], cliEnv());
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: refusing to listen on 0\.0\.0\.0: a merchant uses the public default key/);
    expect(result.stderr).toMatch(/FRAUDCTL_SANDBOX_KEY/);
    expect(result.stdout).toBe('');
  });

  it('serves the key from FRAUDCTL_SANDBOX_KEY instead of the default one', async () => {
    const serving = await serve({ db: ':memory:' }, cliEnv({ FRAUDCTL_SANDBOX_KEY: 'a-secret-of-my-own' }));
    expect((await send(serving.url, 'GET', '/event/x', { key: 'sandbox-demo-key' })).status).toBe(401);
    expect((await send(serving.url, 'GET', '/event/x', { key: 'a-secret-of-my-own' })).status).toBe(404);
    await serving.stop();
  });

  it.each([
    [['--port', 'http'], /a port is a whole number/],
    [['--port', '70000'], /a port is a whole number/],
    [['--chaos', '503=3'], /--chaos: 503 takes a share between 0 and 1/],
    [['--chaos', '503=0.1,seed=x'], /^error: --chaos: seed takes a whole number from 0 to 9007199254740991, not "x"/],
    [['--config', '/nonexistent/sandbox.json'], /cannot read sandbox config \/nonexistent\/sandbox.json: ENOENT/],
    [['--bogus'], /unknown option '--bogus'/],
  ])('exits 2 with one clear line for %j', async (args, message) => {
    const result = await runInProcess(['sandbox', 'serve', '--port', '0', '--db', ':memory:', ...args], cliEnv());
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('exits 2 when the port is taken', async () => {
    const serving = await serve({ db: ':memory:' });
    const port = new URL(serving.url).port;
    const result = await runInProcess(['sandbox', 'serve', '--db', ':memory:', '--port', port], cliEnv());
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`port ${port} on 127.0.0.1 is in use`);
    await serving.stop();
  });
});

describe('fraudctl sandbox default-config', () => {
  it('prints a configuration that serve accepts, and an edit to it changes decisions', async () => {
    const printed = await runInProcess(['sandbox', 'default-config'], cliEnv());
    expect(printed.code).toBe(0);
    const config = JSON.parse(printed.stdout) as { thresholds: { review: number; decline: number } };
    config.thresholds = { review: 1, decline: 2 };
    const file = join(tmp.dir, 'edited.json');
    writeFileSync(file, JSON.stringify(config));
    const serving = await serve({ db: ':memory:', config: file });
    expect(serving.written.stdout).toContain(`config:  ${file}`);
    const reply = await send(serving.url, 'POST', '/event', { body: { amount: 2000, currency: 'EUR' } });
    expect(reply.json).toMatchObject({ actionType: 'DECLINE' });
    await serving.stop();
  });
});

describe('fraudctl', () => {
  it('prints its help, exit codes included', async () => {
    const help = await runInProcess(['--help'], cliEnv());
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Exit codes:');
    expect(help.stdout).toContain('130  interrupted');
  });

  it('exits 2 for an unknown command', async () => {
    const result = await runInProcess(['frobnicate'], cliEnv());
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/unknown command 'frobnicate'/);
  });
});
