import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TERMINAL_CONTROLS, useSandboxForCli } from '../support/cli-against-sandbox.js';
import { DEMO_KEY } from '../support/sandbox.js';

/*
 * The config file as fraudctl meets it on disk (issue 11 properties, as processes): corrupt,
 * truncated, of the wrong types, hostile — a clear message and exit 2, never a stack trace;
 * readable by others — a warning, and the command still runs.
 */

const cli = useSandboxForCli();
const dir = () => join(cli.dir, 'config', 'fraudctl');
const bare = { FRAUDCTL_API_KEY: '', FRAUDCTL_BASE_URL: '' };

function writeConfig(text: string, mode = 0o600): void {
  mkdirSync(dir(), { recursive: true });
  writeFileSync(join(dir(), 'config.json'), text);
  chmodSync(join(dir(), 'config.json'), mode);
}

describe('a config file that cannot be used', () => {
  it.each([
    ['corrupt', '{"profiles": {"prod": {"baseUrl": "https://x.example.com",,}}}', /is not valid JSON/],
    ['truncated', '{"activeProfile": "prod", "profiles": {"prod": {"baseUrl": "https://fr', /is not valid JSON/],
    ['of the wrong types', '{"profiles": {"prod": {"timeoutSeconds": "ten", "retries": 2}}}', /profiles\.prod\.timeoutSeconds must be/],
    ['an array', '[1, 2]', /must hold a JSON object/],
    ['hostile in its names', '{"profiles": {"\\u001b]0;pwned\\u0007\\u009b2J\\u202e": {}}}', /profile name ".*\\u001b.*" /],
    ['binary', '\u0000\u0001\u009b\u001b[2J', /is not valid JSON/],
  ])('%s: one line and a hint, exit 2, no stack', async (_what, text, message) => {
    writeConfig(text);
    const result = await cli.run(['show', 'ord-1'], { env: bare });
    expect(result.code, result.stderr).toBe(2);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^error: config file .*config\.json/);
    expect(lines[0]).toMatch(message);
    expect(lines[1]).toMatch(/fix it in an editor/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.stderr).not.toMatch(TERMINAL_CONTROLS);
    expect(result.stderr).not.toContain('\u0007');
  });
});

describe('a config file others can read', () => {
  it('gets a warning naming the mode and the fix, and the command still runs', async () => {
    writeConfig(JSON.stringify({ activeProfile: 'local', profiles: { local: { baseUrl: cli.sb.url, apiKey: DEMO_KEY } } }), 0o644);
    const result = await cli.run(['show', 'no-such-event-9'], { env: bare });
    expect(result.code).toBe(4);
    expect(result.stderr).toMatch(/^warning: config file .*config\.json can be read by other users \(mode 0644\) and may hold API keys: chmod 600 .*config\.json$/m);
    expect(result.stderr).not.toContain(DEMO_KEY);
    chmodSync(join(dir(), 'config.json'), 0o600);
    expect((await cli.run(['show', 'no-such-event-9'], { env: bare })).stderr).not.toContain('warning');
  });
});
