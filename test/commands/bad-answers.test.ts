import { describe, expect, it } from 'vitest';
import { TERMINAL_CONTROLS } from '../support/cli-against-sandbox.js';
import { useSandboxInProcess } from '../support/in-process-cli.js';
import { useServer } from '../support/listen.js';

/*
 * Every refusal of an answer exits with the code its meaning has (`fraudctl help exit-codes`): an
 * answer the interface never promises — too large, not JSON, a redirect that is not followed,
 * a 404 that is not the service's — is a bad answer, exit 1; 6 is only for "try again later".
 */

const cli = useSandboxInProcess();
const BIG = 20 * 1024 * 1024;

const server = useServer((req, res) => {
  const path = req.url ?? '';
  if (path.startsWith('/chunked/')) {
    // 20 MiB of a valid-looking JSON object, chunked (no Content-Length).
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"id":"big","pad":"');
    const chunk = 'x'.repeat(1024 * 1024);
    let sent = 0;
    const more = () => {
      while (sent < 20) {
        sent++;
        if (!res.write(chunk)) return void res.once('drain', more);
      }
      res.end('"}');
    };
    res.on('error', () => {});
    more();
  } else if (path.startsWith('/sized/')) {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(BIG) });
    res.on('error', () => {});
    res.end(Buffer.alloc(BIG, 0x20));
  } else if (path.startsWith('/html/')) {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<html><title>Welcome</title></html>');
  } else if (path.startsWith('/away/')) {
    res.writeHead(302, { location: 'http://127.0.0.2:1/event/x' });
    res.end();
  } else {
    res.writeHead(301, {});
    res.end();
  }
});

const run = (args: string[], base: string) => cli.run([...args, '--base-url', `${server.url}/${base}`]);

function expectBadAnswer(result: { code: number | null; stderr: string }, message: RegExp): void {
  expect(result.code, result.stderr).toBe(1);
  expect(result.stderr).toMatch(message);
  expect(result.stderr).not.toMatch(TERMINAL_CONTROLS);
  expect(result.stderr.trim().split('\n').length).toBeLessThanOrEqual(2);
}

describe('an answer the interface never promises: exit 1, not 6', () => {
  it('a 20 MiB body, chunked (show)', async () => {
    expectBadAnswer(
      await run(['show', 'big'], 'chunked'),
      /^error: the answer from 127\.0\.0\.1:\d+ while fetching event "big" is larger than 16 MiB: not read/,
    );
  });

  it('a 20 MiB body with a Content-Length (alerts)', async () => {
    expectBadAnswer(await run(['alerts', 'big'], 'sized'), /is larger than 16 MiB: not read/);
  });

  it('a 200 that is an HTML page', async () => {
    expectBadAnswer(
      await run(['show', 'x'], 'html'),
      /answered 200 while fetching event "x", but the body is not JSON \(an HTML page titled "Welcome"\)/,
    );
  });

  it('a redirect to another origin, and one without a Location', async () => {
    expectBadAnswer(await run(['show', 'x'], 'away'), /redirected to another origin/);
    expectBadAnswer(await run(['show', 'x'], 'nowhere'), /a redirect\) without a usable Location/);
  });
});
