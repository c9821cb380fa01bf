import { describe, expect, it } from 'vitest';
import { TERMINAL_CONTROLS } from '../support/cli-against-sandbox.js';
import { useSandboxInProcess } from '../support/in-process-cli.js';
import { useServer } from '../support/listen.js';

/*
 * What a user sees when the service is not there, not what it should be, or slow: one clear
 * line (sanitised), the right exit code, and never the API key.
 */
const cli = useSandboxInProcess();
const SECRET = 'sk-live-very-secret-0123456789';

const server = useServer((req, res) => {
  if (req.url?.startsWith('/event/html')) {
    res.writeHead(502, { 'content-type': 'text/html' });
    res.end('<html><head><title>Bad Gateway \u001b[31m</title></head><body>nginx</body></html>');
  } else if (req.url?.startsWith('/event/trickle')) {
    res.writeHead(200, { 'content-type': 'application/json' });
    const timer = setInterval(() => res.write(' '), 200);
    res.on('close', () => clearInterval(timer));
  } else if (req.url?.startsWith('/event/hostile')) {
    res.writeHead(401, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        requestId: 'r\u001b]0;pwned\u0007',
        errorType: 'UNAUTHORIZED\u202e',
        errorCodes: ['API_KEY_INVALID\u009b2J'],
      }),
    );
  } else {
    res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '0' });
    res.end(JSON.stringify({ requestId: 'r-1', errorType: 'SERVICE_UNAVAILABLE', errorCodes: ['OVERLOADED'] }));
  }
});

const run = (args: string[]) => cli.run([...args, '--base-url', server.url], { env: { FRAUDCTL_API_KEY: SECRET } });

// Side by side: each run waits on a timeout or on retries' backoff, not on the CPU.
describe.concurrent('client errors', () => {
  it('connection refused: exit 6, one line saying where and what to check', async () => {
    const result = await cli.runProcess(['show', 'x', '--base-url', 'http://127.0.0.1:1'], {
      env: { FRAUDCTL_API_KEY: SECRET },
    });
    expect(result.code).toBe(6);
    expect(result.stderr).toMatch(/^error: cannot connect to 127\.0\.0\.1:1: connection refused$/m);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('an HTML page from a proxy: exit 6 for a 502, described without its markup or escapes', async () => {
    const result = await run(['show', 'html-1']);
    expect(result.code).toBe(6);
    expect(result.stderr).toContain('an HTML page titled "Bad Gateway');
    expect(result.stderr).not.toContain('<html');
    expect(result.stderr).not.toMatch(TERMINAL_CONTROLS);
  });

  it('a server that trickles bytes still times out, exit 6', async () => {
    const started = Date.now();
    const result = await run(['show', 'trickle-1', '--timeout', '1']);
    expect(result.code).toBe(6);
    expect(result.stderr).toMatch(/no complete answer from .* within 1 s/);
    expect(Date.now() - started).toBeLessThan(8_000);
  });

  it('503 is retried, then reported as unavailable, exit 6', async () => {
    const result = await run(['show', 'busy-1', '--debug']);
    expect(result.code).toBe(6);
    expect(result.stderr).toMatch(
      /the service is unavailable while fetching event "busy-1" \(503 SERVICE_UNAVAILABLE: OVERLOADED, request r-1\)/,
    );
    expect(result.stderr.match(/→ GET/g)?.length).toBe(4);
  });

  it('hostile error fields are neutralised', async () => {
    const result = await run(['show', 'hostile-1']);
    expect(result.code).toBe(3);
    expect(result.stderr).not.toMatch(TERMINAL_CONTROLS);
    expect(result.stderr).toContain('fraudctl login');
  });

  it('--debug logs requests and responses with the key redacted, and the key appears nowhere', async () => {
    const outputs = [
      await run(['show', 'busy-1', '--debug']),
      await run(['set-state', 'busy-1', '--state', 'APPROVED', '--dry-run']),
      await run(['show', 'hostile-1', '--debug']),
    ];
    const debug = outputs[0]!.stderr;
    expect(debug).toContain(`→ GET ${server.url}/event/busy-1`);
    expect(debug).toContain('"x-client-api-key":"[redacted]"');
    expect(debug).toContain('← 503');
    for (const o of outputs) {
      expect(o.stdout + o.stderr).not.toContain(SECRET);
      expect(o.stdout + o.stderr).not.toContain(SECRET.slice(0, 12));
    }
  });

  it('without --debug an error is one line and a hint, no stack', async () => {
    const plain = await run(['show', 'html-1']);
    expect(plain.stderr.split('\n').filter(Boolean).length).toBeLessThanOrEqual(2);
    expect(plain.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('a one-letter API key', () => {
  it('against the real sandbox: messages read as written, not "API [redacted]ey"', async () => {
    // The embedded sandbox with "e" as its key; a wrong key "e" for the served one.
    const missing = await cli.run(['show', 'no-such-event-e'], {
      env: { FRAUDCTL_BASE_URL: '', FRAUDCTL_SANDBOX_KEY: 'e', FRAUDCTL_API_KEY: 'e' },
    });
    expect(missing.code, missing.stderr).toBe(4);
    expect(missing.stderr).toMatch(
      /^error: no event "no-such-event-e" \(404 NOT_FOUND: EVENT_NOT_FOUND, request [0-9a-f-]{36}\)\ncheck the id: ids are case-sensitive\n$/m,
    );
    const refused = await cli.run(['show', 'evt-1'], { env: { FRAUDCTL_API_KEY: 'e' } });
    expect(refused.code).toBe(3);
    expect(refused.stderr).toMatch(
      /^error: the service did not accept the API key \(401 UNAUTHORIZED: API_KEY_INVALID, request [0-9a-f-]{36}\)$/m,
    );
    expect(missing.stderr + refused.stderr).not.toContain('[redacted]');
  });
});
