import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliEnv, runCli, startServe } from '../support/cli.js';
import { startOnTerminal } from '../support/pty.js';
import { send, tempDir } from '../support/sandbox.js';

const tmp = tempDir();
afterAll(() => tmp.remove());
const order = (id: string) => ({ id, amount: 42, currency: 'EUR', userEmail: `${id}@example.com` });

/**
 * A POST on a connection of its own, written by hand so that the test knows when its bytes have
 * left (`sent`: the client's port once the whole request is written) and what came back (`status`).
 */
function rawPost(url: string, body: unknown): { sent: Promise<number>; status: Promise<number> } {
  const { hostname, port } = new URL(url);
  const text = JSON.stringify(body);
  const socket = connect(Number(port), hostname);
  const sent = new Promise<number>((resolve, reject) => {
    socket.once('error', reject);
    socket.once('connect', () => {
      const head = `POST /event HTTP/1.1\r\nhost: ${hostname}:${port}\r\nx-client-api-key: sandbox-demo-key\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n`;
      socket.write(head + text, () => resolve(socket.localPort!));
    });
  });
  const status = new Promise<number>((resolve, reject) => {
    let answer = '';
    socket.setEncoding('utf8').on('data', (d: string) => (answer += d));
    socket.once('error', reject);
    socket.once('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0)));
  });
  return { sent, status };
}

/**
 * Waits until the server on `port` (127.0.0.1) has read everything sent on the connections from
 * `clientPorts`: the kernel's view (/proc/net/tcp, Linux) of the server's end of each, nothing
 * left in its receive queue. The requests were written before this is called (rawPost's `sent`),
 * and on loopback a written byte is in the server's queue at once, so an empty queue means read.
 */
async function readByServer(port: number, clientPorts: readonly number[]): Promise<void> {
  const hex = (p: number) => `0100007F:${p.toString(16).toUpperCase().padStart(4, '0')}`;
  const server = hex(port);
  const clients = new Set(clientPorts.map(hex));
  const deadline = Date.now() + 10_000;
  for (;;) {
    const rows = readFileSync('/proc/net/tcp', 'utf8')
      .split('\n')
      .slice(1)
      .map((l) => l.trim().split(/\s+/));
    // Columns: sl, local_address, rem_address, st (01 ESTABLISHED), tx_queue:rx_queue, …
    const read = rows.filter((r) => r[1] === server && clients.has(r[2]!) && r[4]?.endsWith(':00000000')).length;
    if (read === clients.size) return;
    if (Date.now() > deadline) throw new Error(`the server read ${read} of ${clients.size} requests within 10 s`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/*
 * `sandbox serve` as a process, for what only a process shows: signals (SIGTERM, SIGHUP, a
 * terminal that hangs up) and SIGKILL, and the exit they end it with. The rest of serve and
 * default-config runs in-process: test/commands/sandbox/run.test.ts.
 */

describe('fraudctl sandbox serve', () => {
  it('keeps every acknowledged event across a restart, even after SIGKILL', async () => {
    const db = join(tmp.dir, 'restart.db');
    const first = await startServe(['--db', db]);
    for (let i = 0; i < 25; i++)
      expect((await send(first.url, 'POST', '/event', { body: order(`keep-${i}`) })).status).toBe(201);
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
    const posts = Array.from({ length: 10 }, (_, i) => rawPost(serving.url, order(`drain-${i}`)));
    // In flight: the server has read all ten (a fixed pause would race a loaded machine).
    await readByServer(Number(new URL(serving.url).port), await Promise.all(posts.map((p) => p.sent)));
    const ended = serving.stop('SIGTERM');
    expect(await Promise.all(posts.map((p) => p.status))).toEqual(Array(10).fill(201));
    const result = await ended;
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/SIGTERM: finishing requests in flight/);

    const again = await startServe(['--db', db]);
    for (let i = 0; i < 10; i++) expect((await send(again.url, 'GET', `/event/drain-${i}`)).status).toBe(200);
    await again.stop();
  });

  it('on kill -HUP finishes the requests in flight, says so, then ends by SIGHUP (129 to a shell)', async () => {
    const serving = await startServe(['--db', join(tmp.dir, 'hup.db'), '--chaos', 'latency=400']);
    const posts = Array.from({ length: 5 }, (_, i) => rawPost(serving.url, order(`hup-${i}`)));
    await readByServer(Number(new URL(serving.url).port), await Promise.all(posts.map((p) => p.sent)));
    const ended = serving.stop('SIGHUP');
    expect(await Promise.all(posts.map((p) => p.status))).toEqual(Array(5).fill(201));
    const result = await ended;
    expect(result.signal).toBe('SIGHUP');
    expect(result.stderr).toMatch(/SIGHUP: finishing requests in flight/);
  });

  it('on a terminal that hangs up (SIGHUP) it also finishes the requests in flight, though it can no longer say so', async () => {
    const db = join(tmp.dir, 'hangup.db');
    const pty = await startOnTerminal(['sandbox', 'serve', '--port', '0', '--db', db, '--chaos', 'latency=400'], {
      env: cliEnv(),
    });
    try {
      const url = /listening on (http:\/\/\S+)/.exec(await pty.waitFor(/listening on http:\/\/\S+/))![1]!;
      const posts = Array.from({ length: 5 }, (_, i) => rawPost(url, order(`hangup-${i}`)));
      await readByServer(Number(new URL(url).port), await Promise.all(posts.map((p) => p.sent)));
      // The terminal goes away: SIGHUP, and its first words on stderr ("SIGHUP: finishing …") fail.
      await pty.kill();
      expect(await Promise.all(posts.map((p) => p.status))).toEqual(Array(5).fill(201));
    } finally {
      await pty.kill();
    }
  });
});

describe('fraudctl', () => {
  // As a process: the built CLI answers a lone --version itself, straight to its stdout (src/main.ts).
  it('prints its version', async () => {
    const version = await runCli(['--version']);
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});
