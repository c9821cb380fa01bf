import { afterEach, describe, expect, it } from 'vitest';
import { useSandboxInProcess } from '../support/in-process-cli.js';
import { startOnTerminal, type Pty } from '../support/pty.js';

/*
 * A terminal whose locale is not UTF-8 (LANG=C, a Latin-1 locale) gets ASCII: table borders of
 * + - |, separators, arrows and cuts in ASCII, so nothing shows as mojibake. The sandbox's data
 * is ASCII, so every byte fraudctl writes there is too. The same commands under a UTF-8 locale
 * draw the UTF-8 marks (the control that shows the test can fail). In-process (main, its streams
 * and exit code) but for one show, which checks the bundle's choice as a process.
 */

const cli = useSandboxInProcess();
const review = (await import('../../examples/review.json', { with: { type: 'json' } })).default;

const NOT_ASCII = /[^\t\n\r -~]/u;
const C = { LANG: 'C' };
const LATIN1 = { LC_ALL: 'de_DE.ISO-8859-1', LANG: 'de_DE.UTF-8' };
const UTF8 = { LANG: 'en_US.UTF-8' };

function firstNonAscii(text: string): string {
  const at = text.search(NOT_ASCII);
  return at < 0 ? '(none)' : JSON.stringify(text.slice(Math.max(0, at - 30), at + 10));
}

async function reviewEvent(id: string): Promise<void> {
  await cli.sb.call('POST', '/event', { body: { ...review, id, userEmail: `${id}@example.org` } });
}

describe('a locale that is not UTF-8 gets ASCII', () => {
  it('show ID: the tables bordered with + - |', async () => {
    await reviewEvent('ascii-1');
    const ascii = await cli.runProcess(['show', 'ascii-1'], { env: C });
    expect(ascii.code, ascii.stderr).toBe(0);
    expect(firstNonAscii(ascii.stdout + ascii.stderr)).toBe('(none)');
    expect(ascii.stdout).toMatch(/^\+-+\+/m);
    const utf8 = await cli.run(['show', 'ascii-1'], { env: UTF8 });
    expect(utf8.stdout).toMatch(/^┌─+┬/m);
  });

  it('show with many ids and its count line, a Latin-1 locale (LC_ALL wins over LANG)', async () => {
    await Promise.all(['ascii-2', 'ascii-3'].map(reviewEvent));
    const ascii = await cli.run(['show', 'ascii-2', 'ascii-3', 'no-such-id'], { env: LATIN1 });
    expect(firstNonAscii(ascii.stdout + ascii.stderr)).toBe('(none)');
    expect(ascii.stderr).toMatch(/2 found - 1 not found/);
    const utf8 = await cli.run(['show', 'ascii-2', 'ascii-3', 'no-such-id'], { env: UTF8 });
    expect(utf8.stderr).toMatch(/2 found · 1 not found/);
  });

  it('submit, a refused transition and a bulk dry run: arrows and separators in ASCII', async () => {
    const submitted = await cli.run(['submit', '-'], {
      env: C,
      input: JSON.stringify({ ...review, id: 'ascii-4', userEmail: 'a4@example.org' }),
    });
    expect(submitted.code, submitted.stderr).toBe(0);
    expect(firstNonAscii(submitted.stdout + submitted.stderr)).toBe('(none)');

    await Promise.all(['ascii-5', 'ascii-6'].map(reviewEvent));
    const planned = await cli.run(['set-state', 'ascii-5', 'ascii-6', '--state', 'APPROVED', '--dry-run'], { env: C });
    expect(planned.code, planned.stderr).toBe(0);
    expect(firstNonAscii(planned.stdout + planned.stderr)).toBe('(none)');
    expect(planned.stdout + planned.stderr).toMatch(/PENDING_REVIEW -> APPROVED/);

    // A bulk change the sandbox's rules refuse for one event: the reason names the move in ASCII.
    await cli.run(['set-state', 'ascii-4', '--state', 'APPROVED', '--comments', 'ok'], { env: C });
    const refused = await cli.run(['set-state', 'ascii-4', 'ascii-5', '--state', 'ESCALATED', '--yes'], { env: C });
    expect(firstNonAscii(refused.stdout + refused.stderr)).toBe('(none)');
    expect(refused.stdout + refused.stderr).toMatch(/APPROVED -> ESCALATED is not allowed/);
  });

  it('doctor marks its checks ok and x', async () => {
    const ascii = await cli.run(['doctor'], { env: C });
    expect(firstNonAscii(ascii.stdout + ascii.stderr)).toBe('(none)');
    const utf8 = await cli.run(['doctor'], { env: UTF8 });
    expect(utf8.stdout).toContain('✓');
  });

  it("config list: the profiles' table bordered with + - | (it was drawn in UTF-8 whatever the locale)", async () => {
    const ascii = await cli.run(['config', 'list'], { env: C });
    expect(ascii.code, ascii.stderr).toBe(0);
    expect(firstNonAscii(ascii.stdout + ascii.stderr)).toBe('(none)');
    expect(ascii.stdout).toMatch(/^\+-+\+/m);
    expect((await cli.run(['config', 'list'], { env: UTF8 })).stdout).toMatch(/^┌─+┬/m);
  });
});

describe('review on a terminal whose locale is not UTF-8', () => {
  let pty: Pty | null = null;
  afterEach(async () => {
    await pty?.kill();
    pty = null;
  });

  it('draws its rule, separators and key bar in ASCII', async () => {
    await reviewEvent('ascii-7');
    pty = await startOnTerminal(['review', 'ascii-7'], { env: cli.env(C), width: 80, height: 24 });
    const screen = await pty.waitFor(/IN_REVIEW \((claimed by you|yours)\)/, 'the event claimed');
    expect(firstNonAscii(screen)).toBe('(none)');
    expect(screen).toMatch(/^-{80}$/m);
    await pty.send('a');
    const comment = await pty.waitFor(/approve - comment/, 'the comment line');
    expect(firstNonAscii(comment)).toBe('(none)');
  });
});
