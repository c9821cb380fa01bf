import { spawn } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, nodeWarnings } from '../support/cli.js';
import { useSandboxForCli } from '../support/cli-against-sandbox.js';

/*
 * `fraudctl … | head`: a reader that goes away ends any command at once and quietly (exit 141,
 * as SIGPIPE ends other Unix tools), whatever it was writing and however much.
 */

const cli = useSandboxForCli();

/** An event whose tables and JSON are far larger than a pipe's 64 KiB buffer. */
const BIG_ID = 'big-output-1';
beforeAll(async () => {
  const items = Array.from({ length: 500 }, (_, i) => ({
    itemId: `sku-${i}`,
    itemName: 'n'.repeat(1000),
    itemQuantity: 1,
    itemPrice: 1,
  }));
  const posted = await cli.sb.call('POST', '/event', { body: { id: BIG_ID, amount: 500, currency: 'EUR', items } });
  expect(posted.status).toBe(201);
});

/**
 * Runs fraudctl with its stdout read until `readBytes` have come (0: the read side is closed
 * before the process writes anything), then closed.
 */
function runWithClosingReader(
  args: string[],
  readBytes: number,
): Promise<{ code: number | null; stderr: string; read: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: cli.env() });
    let stderr = '';
    let read = 0;
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    if (readBytes === 0) child.stdout.destroy();
    else
      child.stdout.on('data', (d: Buffer) => {
        read += d.length;
        if (read >= readBytes) child.stdout.destroy();
      });
    child.stdin.end();
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr, read }));
  });
}

describe('a closed stdout', () => {
  it.each([
    ['--help', ['--help']],
    ['show --help', ['show', '--help']],
    ['--version', ['--version']],
    ['completion bash', ['completion', 'bash']],
    ['config list', ['config', 'list']],
    ['show', ['show', BIG_ID]],
  ])('%s, reader gone before the first write: no message, no stack trace, exit 141', async (_name, args) => {
    const result = await runWithClosingReader(args, 0);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(141);
  });

  it('show --json far larger than a pipe buffer, reader gone after the first chunk: quiet, exit 141', async () => {
    const result = await runWithClosingReader(['show', BIG_ID, '--json'], 1);
    expect(result.read).toBeGreaterThan(0);
    expect(result.stderr).toBe('');
    expect(nodeWarnings(result.stderr)).toEqual([]);
    expect(result.code).toBe(141);
  });

  it('the same output read to its end is over four pipe buffers, and exits 0', async () => {
    const result = await cli.run(['show', BIG_ID, '--json']);
    expect(result.code).toBe(0);
    expect(result.stdout.length).toBeGreaterThan(4 * 65536);
  });
});
