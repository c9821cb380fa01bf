import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Socket } from 'node:net';
import { ERROR_TYPES, type ErrorStatus } from '../../contract/index.js';

/*
 * Answers for what never becomes a Fastify request: bytes Node's HTTP parser refuses (an
 * unknown method, duplicate Content-Length, Content-Length with Transfer-Encoding, control
 * characters in a header, raw non-ASCII in the path), a request head over Node's 16 KiB limit,
 * a head or body that stops arriving, and CONNECT. Left to Node and Fastify these got
 * `{"error":"Bad Request",…}` without X-Request-Id, or a closed connection with no answer; here
 * they get the error shape and X-Request-Id like every other answer, then the connection closes
 * (the parser's place in the byte stream is lost, so nothing after can be trusted).
 */

export interface HttpTimeouts {
  /** The request line and headers must arrive within this. */
  headersMs: number;
  /** The whole request, body included, must arrive within this. */
  requestMs: number;
  /** A connection on which nothing arrives for this long is ended (408 if a request was half sent). */
  idleMs: number;
  /** How often Node checks headersMs and requestMs: they can be overrun by up to this much. */
  checkEveryMs: number;
  /** An idle keep-alive connection between requests is closed after this. */
  keepAliveMs: number;
}

/*
 * Why these numbers. A request head is under 16 KiB (Node's limit): 20 s lets it arrive at
 * 6.6 kbit/s, slower than any link that still carries TCP usefully. A body is at most 1 MiB:
 * 300 s (Node's own default) lets it arrive at 28 kbit/s; an event is usually a few KiB, so even
 * a poor mobile link needs a second or two. What ends a stalled body is the idle limit: on a link
 * that still works something arrives within seconds (TCP retransmits within ~1 s, then backs
 * off), so 30 s with nothing at all means the client is gone or stuck. Checking every 5 s keeps
 * the overrun small at the cost of one walk over open connections. Keep-alive: Fastify's 72 s,
 * longer than the 60 s of common proxies, so the client's side closes first.
 *
 * headersMs + checkEveryMs must stay below idleMs: a head that stops half way is then answered
 * 408 by Node's header timer; the idle timer cannot tell it from a keep-alive connection at rest
 * and would close it without a word.
 */
export const DEFAULT_TIMEOUTS: HttpTimeouts = {
  headersMs: 20_000,
  requestMs: 300_000,
  idleMs: 30_000,
  checkEveryMs: 5_000,
  keepAliveMs: 72_000,
};

function rawErrorResponse(status: ErrorStatus, code: string): string {
  const requestId = randomUUID();
  const body = JSON.stringify({ requestId, errorType: ERROR_TYPES[status], errorCodes: [code] });
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
    `content-type: application/json; charset=utf-8\r\n` +
    `content-length: ${Buffer.byteLength(body)}\r\n` +
    `x-request-id: ${requestId}\r\n` +
    `connection: close\r\n\r\n${body}`
  );
}

type HttpSocket = Duplex & {
  _httpMessage?: ServerResponse | null;
  parser?: { incoming?: IncomingMessage | null } | null;
};

/** Writes one error answer unless an answer has begun on this socket, then closes it. */
function answerAndClose(socket: HttpSocket, status: ErrorStatus, code: string): void {
  if (socket.destroyed) return;
  const begun = socket._httpMessage?.headersSent === true;
  if (!begun && socket.writable) {
    // The callback runs once the bytes are handed to the kernel; the timer covers a peer
    // that reads nothing, so a closed connection is certain either way.
    const timer = setTimeout(() => socket.destroy(), 2_000);
    timer.unref();
    socket.write(rawErrorResponse(status, code), () => {
      clearTimeout(timer);
      socket.destroy();
    });
  } else {
    socket.destroy();
  }
}

/** Fastify's clientErrorHandler: Node's parser or its header/request timers refused the request. */
export function clientErrorReply(error: Error & { code?: string }, socket: Socket): void {
  // ECONNRESET: the client went away, there is nobody to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') answerAndClose(socket, 408, 'REQUEST_TIMEOUT');
  else if (error.code === 'HPE_HEADER_OVERFLOW') answerAndClose(socket, 431, 'HEADERS_TOO_LARGE');
  else if (error.code === 'HPE_INVALID_METHOD') answerAndClose(socket, 400, 'METHOD_UNSUPPORTED');
  else answerAndClose(socket, 400, 'MALFORMED_REQUEST');
}

/** CONNECT and the idle limit, on the server Fastify created. */
export function installSocketReplies(server: Server): void {
  // CONNECT asks for a tunnel, which this service does not offer; Node hands it over only here.
  server.on('connect', (_request: IncomingMessage, socket: Duplex) =>
    answerAndClose(socket, 400, 'METHOD_UNSUPPORTED'),
  );
  server.on('timeout', (socket: HttpSocket) => {
    const incoming = socket.parser?.incoming;
    if (incoming && !incoming.complete) {
      // Headers arrived, then the body stopped: the client is stuck, say so if it can still read.
      answerAndClose(socket, 408, 'REQUEST_TIMEOUT');
    } else if (!socket._httpMessage) {
      // Idle between requests: close quietly, as Node does for keep-alive connections.
      socket.destroy();
    }
    // Otherwise the sandbox itself is still answering (--chaos latency): let it finish.
  });
}
