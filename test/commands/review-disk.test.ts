import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { EventSummary } from '../../src/contract/index.js';
import { useSandboxForCli } from '../support/cli-against-sandbox.js';
import { startOnTerminal, type Pty } from '../support/pty.js';
import { smallDisk, type SmallDisk } from '../support/small-disk.js';

/*
 * review --log on a full disk, on a real terminal against the sandbox: a
 * decision the log cannot take is not sent, the session says so and ends, and the event is given
 * back. The disk is a real tmpfs.
 */

const cli = useSandboxForCli();
let opened: Pty[] = [];
const disks: SmallDisk[] = [];
afterEach(async () => {
  await Promise.all(opened.map((p) => p.kill()));
  opened = [];
});
afterAll(() => {
  for (const disk of disks) disk.remove();
});

const summaryOf = async (id: string) => (await cli.sb.call('GET', `/event/${id}`)).json as EventSummary;

describe('review --log on a full disk', () => {
  it.skipIf(!smallDisk.available)(
    `a decision the log cannot take is not sent: the session says why, ends (exit 1) and gives the event back; no torn line${smallDisk.skipReason}`,
    async () => {
      const ids = ['disk-1', 'disk-2'];
      for (const id of ids) await cli.sb.call('POST', '/event', { body: { id, amount: 1500, currency: 'EUR' } });
      const disk = smallDisk.mount(64 * 1024);
      disks.push(disk);
      // The log holds earlier lines and has room for about 1,100 bytes more (the rest of its last
      // page; the disk is full): the claim's two lines fit (about 400 bytes each, with who and
      // where and the chain), the decision's first line does not.
      const log = join(disk.path, 'review.log');
      const earlier = `${JSON.stringify({ earlier: 'x'.repeat(4096 - 1100 - 16) })}\n`;
      writeFileSync(log, earlier);
      // A page for the log's lock file (FILE.lock), nothing more.
      disk.fill(4096);

      const pty = await startOnTerminal(['review', ...ids, '--log', log], { env: cli.env() });
      opened.push(pty);
      await pty.waitFor(/^1\/2\s+disk-1\s.*claimed by you/m, 'disk-1 claimed');
      await pty.send('a');
      await pty.waitFor('approve · comment');
      await pty.send('Enter');
      const { code, screen } = await pty.exited();
      expect(code).toBe(1);
      expect(screen).toMatch(/Review session \(stopped\)/);
      expect(screen).toMatch(/not sent \(failed\)\s+1\s+disk-1/);
      // Lines longer than the terminal's 80 columns wrap on the screen.
      const unwrapped = screen.replace(/\n/g, '');
      expect(unwrapped).toContain(
        `error: the session stopped: cannot write the log ${log}: no space left on its disk (ENOSPC)`,
      );
      // The summary wraps its sentences at words itself.
      const words = screen.replace(/\s+/g, ' ');
      expect(words).toContain(
        `log: ${log} (the session ended here: cannot write the log ${log}: no space left on its disk (ENOSPC)`,
      );
      // Not approved: given back.
      expect((await summaryOf('disk-1')).state).toBe('PENDING_REVIEW');
      expect((await summaryOf('disk-2')).state).toBe('PENDING_REVIEW');
      const text = readFileSync(log, 'utf8');
      expect(text.endsWith('\n')).toBe(true);
      const lines = text
        .slice(earlier.length, -1)
        .split('\n')
        .map((l) => JSON.parse(l) as { eventId: string; action: string; outcome: string });
      expect(lines.map((l) => `${l.eventId} ${l.action} ${l.outcome}`)).toEqual([
        'disk-1 claim sending',
        'disk-1 claim ok',
      ]);
    },
  );
});
