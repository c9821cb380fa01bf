import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer as createNetServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { join } from 'node:path';

/*
 * Forward proxies for the tests, on loopback only: a real one (tinyproxy, Debian's package: .ci/run
 * installs it), started on a free port with a configuration the test writes, optionally asking for
 * credentials or allowing CONNECT to port 443 only; and a small fake that answers every request
 * (CONNECT included) with one status, for statuses tinyproxy does not give.
 */

export interface RunningProxy {
  /** http://127.0.0.1:PORT */
  url: string;
  port: number;
  /** What the proxy logged (tinyproxy) or the request lines it got (fake). */
  log(): string;
  close(): Promise<void>;
}

/** A port free at the moment of asking (tinyproxy cannot take port 0); a lost race is retried by the caller. */
async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface TinyproxyOptions {
  /** Ask for these credentials (BasicAuth): 407 without any, 401 for wrong ones. */
  basicAuth?: { user: string; password: string };
  /** Allow CONNECT only to these ports (tinyproxy answers 403 to others); all ports when absent. */
  connectPorts?: number[];
}

async function startTinyproxyOnce(dir: string, name: string, options: TinyproxyOptions): Promise<RunningProxy | null> {
  const port = await freePort();
  const config = join(dir, `${name}.conf`);
  writeFileSync(
    config,
    [
      `Port ${port}`,
      'Listen 127.0.0.1',
      'Allow 127.0.0.1',
      'Timeout 30',
      'MaxClients 64',
      // Info: the line that says it listens, and one per tunnel opened.
      'LogLevel Info',
      ...(options.basicAuth ? [`BasicAuth ${options.basicAuth.user} ${options.basicAuth.password}`] : []),
      ...(options.connectPorts ?? []).map((p) => `ConnectPort ${p}`),
      '',
    ].join('\n'),
  );
  // -d: stay in the foreground, logging to stdout.
  const child = spawn('tinyproxy', ['-d', '-c', config], { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const started = await new Promise<boolean>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`tinyproxy did not start within 5 s:\n${log}`));
    }, 5_000);
    const read = (d: Buffer) => {
      log += d.toString();
      if (log.includes('Accepting connections')) {
        clearTimeout(timer);
        resolve(true);
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`tinyproxy could not be started (Debian package tinyproxy): ${error.message}`));
    });
    child.on('exit', () => {
      clearTimeout(timer);
      resolve(false);
    });
  });
  if (!started) return null;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    log: () => log,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** tinyproxy on a free loopback port; its configuration and log under `dir`. */
export async function startTinyproxy(dir: string, name: string, options: TinyproxyOptions = {}): Promise<RunningProxy> {
  for (let attempt = 0; attempt < 3; attempt++) {
    // It exits at once when another process took the port in the meantime: try another.
    const proxy = await startTinyproxyOnce(dir, name, options);
    if (proxy) return proxy;
  }
  throw new Error('tinyproxy did not start on three free ports');
}

/**
 * A "proxy" that answers every request, CONNECT included, with `status` and keeps the connection
 * open (as a real proxy's 407 does), with Proxy-Authenticate for a 407.
 */
export async function startFakeProxy(status: number, reason: string): Promise<RunningProxy> {
  let log = '';
  const sockets = new Set<Socket>();
  const server: Server = createNetServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let head = '';
    socket.on('data', (d: Buffer) => {
      head += d.toString('latin1');
      while (head.includes('\r\n\r\n')) {
        log += `${head.slice(0, head.indexOf('\r\n'))}\n`;
        head = head.slice(head.indexOf('\r\n\r\n') + 4);
        const body = `<html><body>${status} ${reason}</body></html>`;
        socket.write(
          `HTTP/1.1 ${status} ${reason}\r\n${status === 407 ? 'Proxy-Authenticate: Basic realm="corp"\r\n' : ''}Content-Type: text/html\r\nContent-Length: ${body.length}\r\nConnection: keep-alive\r\n\r\n${body}`,
        );
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    log: () => log,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
