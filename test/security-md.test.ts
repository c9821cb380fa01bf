import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { notOnWindows, ON_WINDOWS } from './support/prerequisites.js';

/*
 * SECURITY.md on the copies of the key fraudctl cannot prevent (its memory on disk: a core dump,
 * swap), and the advice it gives about them, run as written.
 */

const SECURITY = readFileSync(new URL('../SECURITY.md', import.meta.url), 'utf8');
const section = SECURITY.split(/^\*\*In memory, and what can copy memory to disk\.\*\*/m)[1]?.split(/\n\n/)[0] ?? '';

describe('SECURITY.md: the key in memory', () => {
  it('says that a core dump or swap can hold the key, and what to do', () => {
    const words = section.replace(/\s+/g, ' ');
    expect(words).toContain('core dump');
    expect(words).toContain('swap');
    expect(words).toContain('`ulimit -c 0`');
    expect(words).toContain('encrypted swap');
  });

  it('ulimit -c 0, as written, leaves the processes it starts no core dump', () => {
    notOnWindows(ON_WINDOWS.sh);
    // The limit a process started from that shell has (a shell of its own, to read it back).
    const limits = spawnSync('sh', ['-c', 'ulimit -c 0 && sh -c "ulimit -c"'], { encoding: 'utf8' });
    expect(limits.status, limits.stderr).toBe(0);
    expect(limits.stdout.trim()).toBe('0');
  });
});
