import { afterEach, describe, expect, it } from 'vitest';
import { useSandboxForCli } from '../support/cli-against-sandbox.js';
import { startOnTerminal, type Pty } from '../support/pty.js';
import { startFakeServer, text, type FakeServer } from '../support/fake-server.js';

/*
 * review pointed at something that is not the service (a server answering 405 text/plain to
 * everything) stops as a batch does: at the first answer, saying the URL is not the service,
 * exit 1 — not "refused (405)" for every event and exit 0. On a real terminal (tmux), wide enough
 * for the error's line not to wrap.
 */

const cli = useSandboxForCli();
let opened: Pty[] = [];
let servers: FakeServer[] = [];
afterEach(async () => {
  await Promise.all(opened.map((p) => p.kill()));
  await Promise.all(servers.map((s) => s.close()));
  opened = [];
  servers = [];
});

describe('fraudctl review against a server that is not the service', () => {
  it('405 text/plain to everything: stops at once, exit 1, "not the service", no event passed over as refused', async () => {
    const server = await startFakeServer();
    servers.push(server);
    server.script(text(405, 'Method Not Allowed', 'text/plain'));
    const ids = ['nts-1', 'nts-2', 'nts-3', 'nts-4', 'nts-5', 'nts-6'];
    const pty = await startOnTerminal(['review', ...ids, '--base-url', server.url], { env: cli.env(), width: 250 });
    opened.push(pty);
    const { code, screen } = await pty.exited();
    expect(code, screen).toBe(1);
    expect(screen).toMatch(/Review session \(stopped\)/);
    expect(screen).toMatch(/error: the session stopped: GET \S+\/event\/nts-1 answered 405 with text\/plain/);
    expect(screen).toMatch(/so this URL is not the service, or not its base path/);
    expect(screen).toMatch(/^check --base-url/m);
    expect(screen).not.toMatch(/refused/);
    // Nothing of the events past those fetched ahead was asked for, and nothing was changed.
    const asked = new Set(server.requests.map((r) => r.url.split('/')[2]));
    expect(
      [...asked].every((id) => id === 'nts-1' || id === 'nts-2'),
      [...asked].join(' '),
    ).toBe(true);
    expect(server.requests.filter((r) => r.method !== 'GET')).toEqual([]);
  });
});
