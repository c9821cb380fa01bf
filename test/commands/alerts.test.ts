import { describe, expect, it } from 'vitest';
import { run } from '../../src/commands/alerts/run.js';
import type { AlertsOptions } from '../../src/commands/alerts/options.js';
import { useSandboxInProcess } from '../support/in-process-cli.js';
import { clientFor, printingDeps } from '../support/room-deps.js';
import { TERMINAL_CONTROLS } from '../support/cli-against-sandbox.js';

/*
 * alerts' work through run(options, deps) against a real sandbox on port 0; the command as fraudctl
 * runs it (argv → exit code) once in-process through main and once as a process.
 */

const cli = useSandboxInProcess();

const options = (overrides: Partial<AlertsOptions> = {}): AlertsOptions => ({
  eventId: 'ord-1003',
  json: false,
  noColor: false,
  ...overrides,
});

function deps(tty: Parameters<typeof printingDeps>[0] = {}) {
  return { ...printingDeps(tty), client: clientFor(cli.sb.url) };
}

describe('alerts: run(options, deps)', () => {
  it('shows decision and score, then alerts sorted by score with severity and description', async () => {
    const decline = (await import('../../examples/decline.json', { with: { type: 'json' } })).default;
    await cli.sb.call('POST', '/event', { body: decline });
    const d = deps();
    await run(options(), d);
    const lines = d.written.stdout.split('\n');
    expect(lines[0]).toContain('DECLINE  score 100/100');
    const order = ['disposable_email', 'high_amount', 'country_mismatch', 'new_account', 'risky_category'].map((id) =>
      lines.findIndex((l) => l.includes(id)),
    );
    expect(order.every((i) => i > 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(d.written.stdout).toMatch(
      /disposable_email · Disposable email domain\s+│ HIGH\s+│\s+35 │ email domain mailinator.com/,
    );
    expect(d.written.stdout).not.toMatch(TERMINAL_CONTROLS);
    expect(d.written.stderr).toBe('');
  });

  it('--json prints the service body', async () => {
    const d = deps();
    await run(options({ json: true }), d);
    expect(JSON.parse(d.written.stdout)).toEqual((await cli.sb.call('GET', '/event/ord-1003/risk-assessment')).json);
  });

  it('in colour on a terminal, not with --no-color or NO_COLOR', async () => {
    const coloured = deps({ tty: true, env: { TERM: 'xterm-256color' } });
    await run(options(), coloured);
    expect(coloured.written.stdout).toMatch(TERMINAL_CONTROLS);
    const flag = deps({ tty: true, env: { TERM: 'xterm-256color' } });
    await run(options({ noColor: true }), flag);
    expect(flag.written.stdout).not.toMatch(TERMINAL_CONTROLS);
    const env = deps({ tty: true, env: { TERM: 'xterm-256color', NO_COLOR: '1' } });
    await run(options(), env);
    expect(env.written.stdout).toBe(flag.written.stdout);
  });

  it('an unknown event: the failure with exit code 4, nothing printed', async () => {
    const d = deps();
    await expect(run(options({ eventId: 'nope' }), d)).rejects.toMatchObject({ exitCode: 4 });
    expect(d.written).toEqual({ stdout: '', stderr: '' });
  });
});

describe('fraudctl alerts: argv → exit code', () => {
  it('in-process: 0 and the tables; an unknown event exit 4, said as a process says it', async () => {
    const found = await cli.run(['alerts', 'ord-1003']);
    expect(found.code).toBe(0);
    expect(found.stdout).toContain('DECLINE  score 100/100');
    const missing = await cli.run(['alerts', 'nope']);
    expect(missing.code).toBe(4);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toMatch(/^error: .*nope/);
    const processRun = await cli.runProcess(['alerts', 'nope']);
    expect(processRun.code).toBe(4);
    const unrequested = (text: string) => text.replace(/request [0-9a-f-]{36}/, 'request R');
    expect(unrequested(processRun.stderr)).toBe(unrequested(missing.stderr));
  });
});
