import type { IncomingMessage, ServerResponse } from 'node:http';
import { listen, type Listening } from './listen.js';

/*
 * A server that gives back the API key it was sent, everywhere a server's words reach the user:
 * in errorType, errorCodes, requestId, a message and a list of messages of the service's error
 * shape, and in the X-Request-Id header. A careless gateway or a debugging page does this; no
 * output of fraudctl may then hold the key (SECURITY.md). It records each key it was sent, so a
 * test can tell that the key did reach it (a check that the output lacks a key never sent
 * proves nothing).
 */

export interface KeyEchoServer extends Listening {
  /** The X-CLIENT-API-KEY of each request, in order (null: none sent). */
  keysSeen: (string | null)[];
}

/** `status`: the answer's status for every request (422 unless told: a rejection that shows the error shape). */
export async function startKeyEchoServer(status = 422): Promise<KeyEchoServer> {
  const keysSeen: (string | null)[] = [];
  const listening = await listen((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      const given = req.headers['x-client-api-key'];
      const key = typeof given === 'string' ? given : null;
      keysSeen.push(key);
      const echo = String(key);
      res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': `req-${echo}` });
      res.end(
        JSON.stringify({
          requestId: `rid-${echo}`,
          errorType: `BAD_${echo}`,
          errorCodes: [`CODE_${echo}`, echo],
          message: `the key ${echo} is wrong`,
          messages: [`key ${echo}`],
        }),
      );
    });
  });
  return Object.assign(listening, { keysSeen });
}
