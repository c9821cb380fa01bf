import { existsSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useSandboxInProcess } from '../support/in-process-cli.js';
import { makeLines, readResults } from '../support/batch-events.js';
import { notOnWindows, ON_WINDOWS } from '../support/prerequisites.js';

/*
 * submit's --rejects file: it never destroys a file the user did not
 * ask to replace — the input, the results file, an unrelated file that exists — and refuses
 * such a name before anything is read or sent (exit 2); it always holds exactly the lines whose
 * result has no decision, also after a --resume decided some of them; it is created 0600, as
 * the results file is (it holds the events as they were: personal data).
 */

const cli = useSandboxInProcess();
let n = 0;
const file = (name: string, content?: string) => {
  const path = join(cli.dir, `${++n}-${name}`);
  if (content !== undefined) writeFileSync(path, content);
  return path;
};
const storedCount = async (ids: string[]) =>
  (await Promise.all(ids.map(async (id) => (await cli.sb.call('GET', `/event/${id}`)).status === 200))).filter(Boolean)
    .length;

describe('--rejects never destroys a file', () => {
  it('the input itself (the README retry with the option kept by habit): refused before reading, the input intact, nothing sent', async () => {
    const lines = makeLines('rej-self', 20);
    const input = file('rejects.jsonl', `${lines.join('\n')}\n`);
    const before = readFileSync(input, 'utf8');
    const result = await cli.run(['submit', input, '--out', file('r2.jsonl'), '--rejects', input]);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(
      `error: --rejects ${input} is the input: writing the rejects there would destroy the events being read`,
    );
    expect(readFileSync(input, 'utf8')).toBe(before);
    expect(await storedCount(lines.map((_, i) => `rej-self-${i + 1}`))).toBe(0);
    // The same file by another name (a symbolic link to it) is the same file, even with --resume.
    const link = file('link.jsonl');
    symlinkSync(input, link);
    const other = await cli.run(['submit', input, '--out', file('r3.jsonl'), '--rejects', link, '--resume']);
    expect(other.code, other.stderr).toBe(2);
    expect(other.stderr).toContain('is the input');
    expect(readFileSync(input, 'utf8')).toBe(before);
  });

  it('an unrelated file that exists, or the --out file: refused, left as it was', async () => {
    const input = file('in.jsonl', `${makeLines('rej-other', 3).join('\n')}\n`);
    const notes = file('notes.txt', 'my notes\n');
    const onNotes = await cli.run(['submit', input, '--rejects', notes]);
    expect(onNotes.code, onNotes.stderr).toBe(2);
    expect(onNotes.stderr).toContain(`error: ${notes} already exists: --rejects never replaces a file`);
    expect(readFileSync(notes, 'utf8')).toBe('my notes\n');
    const out = file('out.jsonl');
    const onOut = await cli.run(['submit', input, '--out', out, '--rejects', out]);
    expect(onOut.code, onOut.stderr).toBe(2);
    expect(onOut.stderr).toContain(`error: --rejects and --out name the same file (${out})`);
    expect(existsSync(out)).toBe(false);
    expect(await storedCount(['rej-other-1', 'rej-other-2', 'rej-other-3'])).toBe(0);
  });

  it('is created 0600, as the results file is', async () => {
    notOnWindows(ON_WINDOWS.modes);
    const input = file('mode.jsonl', `not json\n${makeLines('rej-mode', 2).join('\n')}\n`);
    const out = file('mode.out');
    const rejects = file('mode.rejects');
    const result = await cli.run(['submit', input, '--out', out, '--rejects', rejects]);
    expect(result.code).toBe(1);
    expect(readFileSync(rejects, 'utf8')).toBe('not json\n');
    expect(statSync(rejects).mode & 0o777).toBe(0o600);
    expect(statSync(out).mode & 0o777).toBe(0o600);
  });
});

describe('--rejects after --resume', () => {
  it('holds exactly the lines still without a decision: those the resume decided are gone, so retrying the rejects sends nothing twice', async () => {
    notOnWindows(ON_WINDOWS.modes);
    const lines = makeLines('rej-resume', 8);
    const input = file('resume.jsonl', `not json\n${lines.join('\n')}\n`);
    const out = file('resume.out');
    const rejects = file('resume.rejects');
    // A wrong key: the first event sent fails (401) and the batch stops at once.
    const first = await cli.run(['submit', input, '--out', out, '--rejects', rejects, '--concurrency', '1'], {
      env: { FRAUDCTL_API_KEY: 'not-the-key-0000' },
    });
    expect(first.code, first.stderr).toBe(3);
    expect(readFileSync(rejects, 'utf8')).toBe(`not json\n${lines[0]}\n`);
    const resumed = await cli.run(['submit', input, '--out', out, '--rejects', rejects, '--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(
      readResults(out)
        .filter((r) => r.outcome !== 'DECIDED')
        .map((r) => r.line),
    ).toEqual([1]);
    expect(readFileSync(rejects, 'utf8')).toBe('not json\n');
    expect(statSync(rejects).mode & 0o777).toBe(0o600);
    // The README's simplest retry now sends nothing that has a decision.
    expect(await storedCount(lines.map((_, i) => `rej-resume-${i + 1}`))).toBe(8);
  });
});

describe('--resume without --rejects', () => {
  it('takes the rejects file from the results file, says so, and keeps it in line', async () => {
    const lines = makeLines('rej-taken', 3);
    const input = file('taken.jsonl', `${lines[0]}\nnot json\n${lines.slice(1).join('\n')}\n`);
    const out = file('taken.out');
    const rejects = file('taken.rejects');
    const first = await cli.run([
      'submit',
      input,
      '--out',
      out,
      '--rejects',
      rejects,
      '--concurrency',
      '1',
      '--max-errors',
      '1',
    ]);
    expect(first.code, first.stderr).toBe(1);
    expect(readFileSync(rejects, 'utf8')).toBe('not json\n');
    const resumed = await cli.run(['submit', input, '--out', out, '--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`note: --rejects ${rejects} taken from ${out} (the run it continues)`);
    expect(readFileSync(rejects, 'utf8')).toBe('not json\n');
    const another = await cli.run(['submit', input, '--out', out, '--resume', '--rejects', file('elsewhere.rejects')]);
    expect(another.code).toBe(2);
    expect(another.stderr).toContain(`was written with --rejects ${rejects}, this run has --rejects`);
  });
});

describe('--resume of a results file from before headers, with --rejects', () => {
  it('never truncates the file given: it is only added to, and a warning says why', async () => {
    const lines = makeLines('rej-legacy', 2);
    const input = file('legacy.jsonl', `${lines[0]}\nnot json\n${lines[1]}\n`);
    const out = file('legacy.out');
    expect((await cli.run(['submit', input, '--out', out, '--concurrency', '1', '--max-errors', '1'])).code).toBe(1);
    // As an older fraudctl wrote it: the results alone.
    writeFileSync(out, readFileSync(out, 'utf8').split('\n').slice(1).join('\n'));
    const notes = file('notes.txt', 'my notes\n');
    const resumed = await cli.run(['submit', input, '--out', out, '--resume', '--rejects', notes]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`warning: ${notes} is only added to`);
    expect(readFileSync(notes, 'utf8')).toBe('my notes\n');
  });
});
