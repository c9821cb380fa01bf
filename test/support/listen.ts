import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, onTestFinished, TestRunner } from 'vitest';

/*
 * An HTTP server of a test's own on 127.0.0.1, on an ephemeral port: for what the real sandbox
 * cannot answer (a stand-in that records, an HTML page, a body too large, a hostile event).
 * Closing it destroys the connections still open (a trickling answer, a keep-alive), so no test
 * waits on one; closing twice is harmless.
 */

export interface Listening {
  /** http://127.0.0.1:PORT (no trailing slash). */
  url: string;
  port: number;
  server: Server;
  close(): Promise<void>;
}

/** Listens now. Opened inside a test, it is closed when that test ends; opened in a hook, by `close()`. */
export async function listen(handler?: RequestListener): Promise<Listening> {
  const server = createServer(handler);
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  let closed: Promise<void> | undefined;
  const close = () =>
    (closed ??= new Promise<void>((resolve, reject) => {
      for (const socket of sockets) socket.destroy();
      server.close((error) => (error ? reject(error) : resolve()));
    }));
  if (TestRunner.getCurrentTest()) onTestFinished(close);
  return { url: `http://127.0.0.1:${port}`, port, server, close };
}

/**
 * For a file or a describe block: a server listening before its tests and closed after them.
 * Its fields are there from the first `beforeAll` on.
 */
export function useServer(handler: RequestListener): Listening {
  const handle = {} as Listening;
  beforeAll(async () => {
    Object.assign(handle, await listen(handler));
  });
  afterAll(() => handle.close?.());
  return handle;
}

/** A port on 127.0.0.1 with nothing listening (a server was bound there and closed). */
export async function closedPort(): Promise<number> {
  const { port, close } = await listen();
  await close();
  return port;
}
