import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliEnv, runCli, startServe } from '../support/cli.js';
import { send, tempDir } from '../support/sandbox.js';

const tmp = tempDir();
afterAll(() => tmp.remove());
const order = (id: string) => ({ id, amount: 42, currency: 'EUR', userEmail: `${id}@example.com` });

describe('fraudctl sandbox serve', () => {
  it('says where it listens and keeps its data, under XDG_DATA_HOME by default', async () => {
    const env = cliEnv({ XDG_DATA_HOME: join(tmp.dir, 'xdg-data'), HOME: tmp.dir });
    const serving = await startServe([], env);
    const dbPath = join(tmp.dir, 'xdg-data', 'fraudctl', 'sandbox.db');
    expect(serving.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(serving.output().stdout).toContain(`data:    ${dbPath}`);
    expect(serving.output().stdout).toContain(`openapi: ${serving.url}/openapi.json`);
    expect((await send(serving.url, 'POST', '/event', { body: order('xdg-1') })).status).toBe(201);
    const ended = await serving.stop('SIGTERM');
    expect(ended.code).toBe(0);
    expect(ended.stderr).toContain('sandbox stopped');
    expect(existsSync(dbPath)).toBe(true);
  });

  it('keeps every acknowledged event across a restart, even after SIGKILL', async () => {
    const db = join(tmp.dir, 'restart.db');
    const first = await startServe(['--db', db]);
    for (let i = 0; i < 25; i++) expect((await send(first.url, 'POST', '/event', { body: order(`keep-${i}`) })).status).toBe(201);
    expect((await first.stop('SIGKILL')).signal).toBe('SIGKILL');

    const second = await startServe(['--db', db]);
    for (let i = 0; i < 25; i++) expect((await send(second.url, 'GET', `/event/keep-${i}`)).status).toBe(200);
    // A replay after the restart is recognised as one.
    expect((await send(second.url, 'POST', '/event', { body: order('keep-0') })).status).toBe(200);
    expect((await second.stop()).code).toBe(0);
  });

  it('on SIGTERM finishes the requests in flight before it exits, and loses none of them', async () => {
    const db = join(tmp.dir, 'drain.db');
    const serving = await startServe(['--db', db, '--chaos', 'latency=400']);
    const inFlight = Array.from({ length: 10 }, (_, i) => send(serving.url, 'POST', '/event', { body: order(`drain-${i}`) }));
    await new Promise((r) => setTimeout(r, 150));
    const ended = serving.stop('SIGTERM');
    const replies = await Promise.all(inFlight);
    expect(replies.map((r) => r.status)).toEqual(Array(10).fill(201));
    const result = await ended;
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/SIGTERM: finishing requests in flight/);

    const again = await startServe(['--db', db]);
    for (let i = 0; i < 10; i++) expect((await send(again.url, 'GET', `/event/drain-${i}`)).status).toBe(200);
    await again.stop();
  });

  it('refuses a non-loopback address while the public default key is in use', async () => {
    const result = await runCli(['sandbox', 'serve', '--host', '0.0.0.0', '--db', ':memory:']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: refusing to listen on 0\.0\.0\.0: a merchant uses the public default key/);
    expect(result.stderr).toMatch(/FRAUDCTL_SANDBOX_KEY/);
    expect(result.stdout).toBe('');
  });

  it('serves the key from FRAUDCTL_SANDBOX_KEY instead of the default one', async () => {
    const serving = await startServe(['--db', ':memory:'], cliEnv({ FRAUDCTL_SANDBOX_KEY: 'a-secret-of-my-own' }));
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
    const result = await runCli(['sandbox', 'serve', '--db', ':memory:', ...args]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('exits 2 when the port is taken', async () => {
    const serving = await startServe(['--db', ':memory:']);
    const port = new URL(serving.url).port;
    const result = await runCli(['sandbox', 'serve', '--db', ':memory:', '--port', port]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`port ${port} on 127.0.0.1 is in use`);
    await serving.stop();
  });
});

describe('fraudctl sandbox default-config', () => {
  it('prints a configuration that serve accepts, and an edit to it changes decisions', async () => {
    const printed = await runCli(['sandbox', 'default-config']);
    expect(printed.code).toBe(0);
    const config = JSON.parse(printed.stdout) as { thresholds: { review: number; decline: number } };
    config.thresholds = { review: 1, decline: 2 };
    const file = join(tmp.dir, 'edited.json');
    writeFileSync(file, JSON.stringify(config));
    const serving = await startServe(['--db', ':memory:', '--config', file]);
    expect(serving.output().stdout).toContain(`config:  ${file}`);
    const reply = await send(serving.url, 'POST', '/event', { body: { amount: 2000, currency: 'EUR' } });
    expect(reply.json).toMatchObject({ actionType: 'DECLINE' });
    await serving.stop();
  });
});

describe('fraudctl', () => {
  it('prints its version and help, exit codes included', async () => {
    const version = await runCli(['--version']);
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const help = await runCli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Exit codes:');
    expect(help.stdout).toContain('130  interrupted');
  });

  it('exits 2 for an unknown command', async () => {
    const result = await runCli(['frobnicate']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/unknown command 'frobnicate'/);
  });
});
