import { connect, type Socket } from 'node:net';

/*
 * HTTP/1.1 by hand over a TCP socket, for requests no client library would send (unknown
 * methods, duplicate Content-Length, control characters in headers, raw bytes in the path,
 * bodies that stop half way), and to see exactly what comes back, closed connection included.
 */

export interface RawReply {
  /** null when the connection closed without an answer. */
  status: number | null;
  headers: Record<string, string>;
  body: string;
  json: unknown;
  /** The server closed the connection (within `closeWaitMs` of the answer). */
  closed: boolean;
  /** From the last byte sent to the end of the answer (or the close). */
  elapsedMs: number;
}

export interface RawOptions {
  /** Pieces written one after the other, `pauseMs` apart. */
  pauseMs?: number;
  /** Give up waiting for an answer after this long (then status is null and closed false). */
  timeoutMs?: number;
  /** After a complete answer, how long to wait for the server to close the connection. */
  closeWaitMs?: number;
  /** The answer has no body whatever its Content-Length says (an answer to HEAD). */
  noBody?: boolean;
}

function parse(
  raw: Buffer,
  noBody = false,
): { status: number; headers: Record<string, string>; body: Buffer; complete: boolean } | undefined {
  // An interim answer (100 Continue) comes first when the request asked for one: skip it.
  while (/^HTTP\/1\.1 1\d\d /.test(raw.subarray(0, 13).toString('latin1'))) {
    const interimEnd = raw.indexOf('\r\n\r\n');
    if (interimEnd < 0) return undefined;
    raw = raw.subarray(interimEnd + 4);
  }
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine, ...lines] = raw.subarray(0, end).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const body = raw.subarray(end + 4);
  const length = noBody ? 0 : headers['content-length'] === undefined ? Infinity : Number(headers['content-length']);
  return {
    status: Number(statusLine!.split(' ')[1]),
    headers,
    body: body.subarray(0, length),
    complete: body.length >= length,
  };
}

export function rawExchange(
  port: number,
  pieces: readonly (string | Buffer)[],
  options: RawOptions = {},
): Promise<RawReply> {
  const { pauseMs = 0, timeoutMs = 10_000, closeWaitMs = 500, noBody = false } = options;
  return new Promise((resolve, reject) => {
    const socket: Socket = connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    let sentAt = 0;
    let settled = false;
    let answeredAt = 0;
    const timers: NodeJS.Timeout[] = [];
    const finish = (closed: boolean) => {
      if (settled) return;
      settled = true;
      for (const t of timers) clearTimeout(t);
      socket.destroy();
      const parsed = parse(Buffer.concat(chunks), noBody);
      const body = parsed ? parsed.body.toString('utf8') : '';
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      resolve({
        status: parsed?.status ?? null,
        headers: parsed?.headers ?? {},
        body,
        json,
        closed,
        elapsedMs: (answeredAt || Date.now()) - sentAt,
      });
    };
    socket.on('data', (data) => {
      chunks.push(data);
      const parsed = parse(Buffer.concat(chunks), noBody);
      if (parsed?.complete && !answeredAt) {
        answeredAt = Date.now();
        timers.push(setTimeout(() => finish(false), closeWaitMs));
      }
    });
    socket.on('close', () => finish(true));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      // A reset after the answer is a close; before it, still a close with no answer.
      if (error.code === 'ECONNRESET' || error.code === 'EPIPE') finish(true);
      else if (!settled) reject(error);
    });
    socket.once('connect', () => {
      let i = 0;
      const writeNext = () => {
        if (settled || socket.destroyed) return;
        socket.write(pieces[i]!);
        i += 1;
        if (i < pieces.length) timers.push(setTimeout(writeNext, pauseMs));
        else {
          sentAt = Date.now();
          timers.push(setTimeout(() => finish(false), timeoutMs));
        }
      };
      writeNext();
    });
  });
}
