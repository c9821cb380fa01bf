import { describe, expect, it } from 'vitest';
import type { SessionLog } from '../../src/action-log/action-log.js';
import { sendingEntry } from '../../src/action-log/log-entries.js';
import { createStyle } from '../../src/render/colours.js';
import { runEffect, type QueueClient } from '../../src/review-queue/queue-effects.js';

/*
 * The effects of the review queue run against a client and a log. A change is logged before it
 * is sent; a log that cannot take the line ends the session in the words every writer of a file
 * uses (src/files/file-errors.ts), and nothing is sent.
 */

/** A log whose append fails as the file system fails it, not as a FileWriteError. */
function failingLog(path: string, error: Error): SessionLog {
  return { path, append: () => Promise.reject(error), close: () => Promise.resolve() };
}

/** A client that fails the test if the queue sends anything. */
const sendsNothing: QueueClient = {
  getEvent: () => Promise.reject(new Error('nothing is read')),
  getRiskAssessment: () => Promise.reject(new Error('nothing is read')),
  changeState: () => Promise.reject(new Error('a change the log did not take was sent')),
};

describe('review: a log line that cannot be written', () => {
  it('is said as every writer says it ("cannot write the log PATH: cause"), made safe; nothing is sent', async () => {
    const full = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    const services = { client: sendsNothing, style: createStyle(0), now: () => 0 };
    const logged = sendingEntry({ eventId: 'e1', action: 'approve', from: 'IN_REVIEW', to: 'APPROVED' });
    const patch = { type: 'patch' as const, id: 'e1', change: { state: 'APPROVED' }, logged };
    const msg = await runEffect(patch, { ...services, log: failingLog('/logs/team.log', full) });
    expect(msg).toEqual({
      type: 'logFailed',
      message: 'cannot write the log /logs/team.log: no space left on its disk (ENOSPC)',
      hint: 'free some space and try again; df -h /logs shows how full the disk is',
      notSent: { id: 'e1', what: 'patch' },
    });
    // A path with a terminal control in it reaches the screen escaped, as in every other file message.
    const odd = await runEffect(patch, { ...services, log: failingLog('/logs/a\x1b[2Jb', full) });
    expect(odd).toMatchObject({ message: 'cannot write the log /logs/a\\x1b[2Jb: no space left on its disk (ENOSPC)' });
  });
});
