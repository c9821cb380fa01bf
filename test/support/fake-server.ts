import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { listen } from './listen.js';

/*
 * A small scripted HTTP server on 127.0.0.1 (listen.ts) for the API client and command tests:
 * for what the real sandbox cannot produce (a hostile, broken or differently-shaped server).
 *
 * It records every request exactly as received (method, raw req.url, headers, body) and
 * answers request n with handler n of the script; past the end of the script the last
 * handler answers again. With no script it answers 500 "unscripted".
 */

export { closedPort } from './listen.js';

export interface RecordedRequest {
  method: string;
  /** The request target exactly as received (req.url): not decoded, not normalised. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export type Handler = (res: ServerResponse, req: IncomingMessage, recorded: RecordedRequest) => void;

export interface FakeServer {
  /** http://127.0.0.1:PORT (no trailing slash). */
  url: string;
  port: number;
  requests: RecordedRequest[];
  script(...handlers: Handler[]): void;
  close(): Promise<void>;
}

export async function startFakeServer(): Promise<FakeServer> {
  const requests: RecordedRequest[] = [];
  let handlers: Handler[] = [];
  // Closing destroys the open sockets, which also ends trickling answers (their timers stop on 'close').
  const { url, port, close } = await listen((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      const index = requests.length;
      requests.push(recorded);
      const handler = handlers[Math.min(index, handlers.length - 1)] ?? json(500, { errorType: 'UNSCRIPTED' });
      handler(res, req, recorded);
    });
  });
  return {
    url,
    port,
    requests,
    script: (...next) => {
      handlers = next;
    },
    close,
  };
}

// ---- handlers ----

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Handler {
  return (res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify(body));
  };
}

export function text(status: number, body: string, contentType: string, headers: Record<string, string> = {}): Handler {
  return (res) => {
    res.writeHead(status, { 'content-type': contentType, ...headers });
    res.end(body);
  };
}

export function empty(status: number, headers: Record<string, string> = {}): Handler {
  return (res) => {
    res.writeHead(status, headers);
    res.end();
  };
}

export function redirect(status: number, location: string): Handler {
  return empty(status, { location });
}

/** Reads the whole request, then drops the connection without a byte of answer. */
export const destroy: Handler = (_res, req) => {
  req.socket.destroy();
};

/** Never answers (the connection stays open until the client gives up or the server closes). */
export const hang: Handler = () => {};

/** Sends 200 headers and the start of a JSON body, then one more byte every `everyMs`, forever. */
export function trickle(everyMs = 200): Handler {
  return (res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"id":');
    const timer = setInterval(() => res.write(' '), everyMs);
    res.on('close', () => clearInterval(timer));
  };
}
