import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GENESIS, lineHash, sealLine } from '../../src/action-log/log-chain.js';
import { verifyLog } from '../../src/action-log/verify-log.js';
import { run } from '../../src/commands/log/run.js';
import { CliError } from '../../src/errors/cli-error.js';
import { runCli, cliEnv } from '../support/cli.js';
import { printingDeps } from '../support/room-deps.js';
import { notOnWindows } from '../support/prerequisites.js';
import { tempDir } from '../support/sandbox.js';

/*
 * `fraudctl log verify`: every break named once, worded as what it looks like (the verifier, then
 * the command's run(options, deps) in-process); --expect; files given in order and how they join;
 * what is not a regular file; once as a process, for argv → exit code. Logs are made here as the writer
 * makes them (sealed or, as an older build wrote them, not), then changed as a person or a
 * fault would change them.
 */

const tmp = tempDir('verify-log-');
afterAll(() => tmp.remove());
let files = 0;

/** A chained log of `count` lines starting at number `from` (a file's first line chains from GENESIS). */
interface Made {
  sealed?: boolean;
  from?: number;
  first?: Record<string, unknown>;
  tag?: string;
}

function chained(count: number, options: Made = {}): string[] {
  const { sealed = true, from = 1, tag = 'ord' } = options;
  const lines: string[] = [];
  let prev = GENESIS;
  for (let line = from; line < from + count; line++) {
    const extra = line === from ? (options.first ?? {}) : {};
    const json = JSON.stringify({ eventId: `${tag}-${line}`, analyst: 'alice', outcome: 'ok', ...extra, line, prev });
    const text = sealed ? sealLine(json) : json;
    lines.push(text);
    prev = lineHash(Buffer.from(text));
  }
  return lines;
}

function file(content: string | Buffer | string[]): string {
  const path = join(tmp.dir, `log-${++files}.log`);
  writeFileSync(path, Array.isArray(content) ? `${content.join('\n')}\n` : content);
  return path;
}

async function breaksOf(content: string | Buffer | string[]): Promise<Array<[number, string, string]>> {
  const verdict = await verifyLog(file(content));
  return verdict.breaks.map((b) => [b.line, b.kind, b.problem]);
}

describe('every break, each named once with what it looks like', () => {
  it('two edits in one file: two breaks, each on its line; an edited last line too', async () => {
    const lines = chained(8);
    lines[1] = lines[1]!.replace('alice', 'bob');
    lines[5] = lines[5]!.replace('alice', 'eve');
    lines[7] = lines[7]!.replace('"ok"', '"refused"');
    expect(await breaksOf(lines)).toEqual([
      [2, 'edited', 'line 2 was edited: its own hash does not match its text'],
      [6, 'edited', 'line 6 was edited: its own hash does not match its text'],
      [8, 'edited', 'line 8 was edited: its own hash does not match its text'],
    ]);
  });

  it('a swapped pair is one break, and so is a line moved up or down; the rest is judged still', async () => {
    const swapped = chained(20);
    [swapped[9], swapped[10]] = [swapped[10]!, swapped[9]!];
    swapped[15] = swapped[15]!.replace('alice', 'bob');
    expect(await breaksOf(swapped)).toEqual([
      [10, 'reordered', 'lines 10 and 11 are out of order (swapped): line 10 was written after line 11'],
      [16, 'edited', 'line 16 was edited: its own hash does not match its text'],
    ]);
    const up = chained(12);
    up.splice(3, 0, up.splice(8, 1)[0]!); // the 9th line now 4th
    expect(await breaksOf(up)).toEqual([[4, 'reordered', 'line 4 was moved: it was written after what is now line 9']]);
    const down = chained(12);
    down.splice(8, 0, down.splice(3, 1)[0]!); // the 4th line now 9th
    expect(await breaksOf(down)).toEqual([
      [4, 'reordered', 'line 9 was moved: it was written just before what is now line 4'],
    ]);
  });

  it('lines removed at the start and in the middle, each said with how many', async () => {
    const lines = chained(20);
    const cut = [...lines.slice(2, 6), ...lines.slice(9)];
    expect(await breaksOf(cut)).toEqual([
      [1, 'removed', 'the first 2 lines were removed (line 1 says it was line 3)'],
      [5, 'removed', '3 lines were removed before line 5 (it says it was line 10)'],
    ]);
  });

  it('a copy of a line, a line from another log and unchained lines inserted: one break each', async () => {
    const lines = chained(10);
    const other = chained(10, { tag: 'x' });
    const forged = ['{"eventId":"forged"}', '{"eventId":"forged2"}'];
    const changed = [...lines.slice(0, 3), lines[1]!, ...lines.slice(3, 6), other[4]!];
    changed.push(...lines.slice(6, 8), ...forged, ...lines.slice(8));
    expect(await breaksOf(changed)).toEqual([
      [4, 'inserted', 'line 4 is a copy of line 2, inserted here'],
      [8, 'inserted', 'line 8 was inserted or copied here (it says it was line 5)'],
      [11, 'inserted', 'lines 11-12 do not belong between lines 10 and 13: inserted, or moved there'],
    ]);
  });

  it('lines of an older build (no seal): an edited line and an edited prev field told apart, every one', async () => {
    const lines = chained(12, { sealed: false });
    lines[2] = lines[2]!.replace('alice', 'bob');
    lines[7] = lines[7]!.replace(/"prev":"[0-9a-f]{4}/, '"prev":"0000');
    expect(await breaksOf(lines)).toEqual([
      [3, 'edited', 'line 3 was edited: line 4 holds the hash of another text'],
      [8, 'edited', 'line 8 was edited (its prev field no longer holds the hash of line 7)'],
    ]);
  });

  it('CR LF endings and a missing last line feed: said once for the file, as what they are', async () => {
    const lines = chained(5);
    expect(await breaksOf(lines.map((l) => `${l}\r\n`).join(''))).toEqual([
      [
        1,
        'crlf',
        'every line ends with CR LF: the file was saved with Windows line endings (the chain holds without the CRs)',
      ],
    ]);
    expect(await breaksOf(lines.join('\n'))).toEqual([
      [5, 'unterminated', 'line 5 is whole but the file does not end with a line feed (saved by an editor?)'],
    ]);
    const cut = `${lines.slice(0, 4).join('\n')}\n${lines[4]!.slice(0, 40)}`;
    expect(await breaksOf(cut)).toEqual([[5, 'cut', 'line 5 is cut short (the file ends in the middle of it)']]);
  });

  it('NUL bytes of a power cut: a run named as such, with the lines it took the place of; NULs before a line', async () => {
    const lines = chained(6);
    const nuls = Buffer.alloc(5000);
    // The writer after the crash chains from the NUL run as a line of its own (it starts its line with a line feed).
    const after = sealLine(JSON.stringify({ eventId: 'ord-5', line: 5, prev: lineHash(nuls) }));
    const head = Buffer.from(`${lines.slice(0, 3).join('\n')}\n`);
    expect(await breaksOf(Buffer.concat([head, nuls, Buffer.from(`\n${after}\n`)]))).toEqual([
      [4, 'nul', 'line 4 is 5000 NUL bytes (a crash or power cut)'],
    ]);
    // NULs where lines 4 and 5 were: the line after them says it was line 6.
    expect(await breaksOf(Buffer.concat([head, nuls, Buffer.from(`\n${lines[5]}\n`)]))).toEqual([
      [4, 'nul', 'line 4 is 5000 NUL bytes (a crash or power cut): it holds the place of lines 4-5, lost'],
    ]);
    const rest = Buffer.from(`${lines.slice(3).join('\n')}\n`);
    expect(await breaksOf(Buffer.concat([head, Buffer.alloc(3), rest]))).toEqual([
      [4, 'nul', 'NUL bytes at the start of line 4 (a crash or power cut)'],
    ]);
  });

  it('unchained lines at the start are one break, and the breaks after them are named too', async () => {
    const old = ['{"eventId":"a"}', '{"eventId":"b"}'];
    // A fraudctl that chains appends to a file of unchained lines: its first line chains from the last of them.
    const relinked = chainOn([...old], 4);
    expect(await breaksOf(relinked)).toEqual([
      [
        1,
        'unchained',
        'unchained lines 1-2: written by a fraudctl that did not chain its log lines, so nothing proves they were not changed; lines 3-6 chained and intact',
      ],
    ]);
    relinked[4] = relinked[4]!.replace('alice', 'bob');
    expect((await breaksOf(relinked)).map(([n, kind]) => [n, kind])).toEqual([
      [1, 'unchained'],
      [5, 'edited'],
    ]);
  });
});

/** `count` sealed lines appended to `lines` as the writer appends them. */
function chainOn(lines: string[], count: number): string[] {
  for (let i = 0; i < count; i++) {
    const line = lines.length + 1;
    const prev = lineHash(Buffer.from(lines[lines.length - 1]!));
    lines.push(sealLine(JSON.stringify({ eventId: `ord-${line}`, analyst: 'alice', line, prev })));
  }
  return lines;
}

interface Verified {
  code: number;
  stdout: string;
  /** The failure's message and hint, as main says them on stderr ('' when none). */
  error: string;
  hint?: string | undefined;
}

/** `log verify` through its run(options, deps): what it printed, and the failure it ended with. */
async function verify(args: string[]): Promise<Verified> {
  const at = args.indexOf('--expect');
  const expected = at === -1 ? null : args[at + 1]!.toLowerCase();
  const files = args.filter((a, i) => a !== '--json' && a !== '--expect' && (at === -1 || i !== at + 1));
  const deps = printingDeps();
  try {
    await run({ files, expect: expected, json: args.includes('--json'), noColor: false }, deps);
    expect(deps.written.stderr).toBe('');
    return { code: 0, stdout: deps.written.stdout, error: '' };
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    return { code: error.exitCode, stdout: deps.written.stdout, error: error.message, hint: error.hint };
  }
}

const env = () => cliEnv({ HOME: tmp.dir, XDG_CONFIG_HOME: join(tmp.dir, 'config') });

describe('log verify: run(options, deps)', () => {
  it('names every break under a count, exit 1; --json gives every break', async () => {
    const lines = chained(12);
    lines[2] = lines[2]!.replace('alice', 'bob');
    [lines[7], lines[8]] = [lines[8]!, lines[7]!];
    const path = file(lines);
    const result = await verify([path]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe(
      `${path}: NOT INTACT: 2 breaks in 12 lines (lines 1-2 intact)\n` +
        '  line 3 was edited: its own hash does not match its text\n' +
        '  lines 8 and 9 are out of order (swapped): line 8 was written after line 9\n',
    );
    expect(result.error).toBe(`${path} is not intact (2 breaks, the first at line 3)`);
    const json = await verify([path, '--json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject([
      {
        ...{ file: path, intact: false, lines: 12, firstBad: 3, kind: 'edited' },
        breaks: [
          { line: 3, kind: 'edited' },
          { line: 8, kind: 'reordered' },
        ],
      },
    ]);
  });

  it('--expect HASH: the kept line still there (lines added after it said), or gone from the end: exit 1', async () => {
    const lines = chained(10);
    const kept = lineHash(Buffer.from(lines[7]!));
    const whole = await verify([file(lines.slice(0, 8))]);
    expect(whole.stdout).toBe(`${join(tmp.dir, `log-${files}.log`)}: 8 lines intact (last line's hash ${kept})\n`);
    const same = await verify([file(lines.slice(0, 8)), '--expect', kept]);
    expect(same.code, same.error).toBe(0);
    expect(same.stdout).toContain(`: the expected line is line 8, as it was; nothing was added after it\n`);
    const grown = await verify([file(lines), '--expect', kept.toUpperCase()]);
    expect(grown.code, grown.error).toBe(0);
    expect(grown.stdout).toContain(`: the expected line is line 8, as it was; 2 lines were added after it since\n`);
    const shortened = file(lines.slice(0, 6));
    const gone = await verify([shortened, '--expect', kept]);
    expect(gone.code).toBe(1);
    expect(gone.stdout).toBe(
      `${shortened}: NOT INTACT: the expected line (hash ${kept}) is not in it: lines ` +
        `were removed from the end (it ends at line 6 now), or that line was edited (lines 1-6 intact)\n`,
    );
    expect(gone.error).toBe(`${shortened} is not intact (line 7)`);
  });

  it('files in order: one continuing another joins it, or the lines lost between are named; alone: said', async () => {
    const old = chained(10);
    const lastKnown = (line: number, text: string) => ({ continues: { line, hash: lineHash(Buffer.from(text)) } });
    // Renamed away (rotation): the new file's first line continues from the old file's last.
    const rotated = file(old);
    const fresh = file(chained(3, { first: lastKnown(10, old[9]!) }));
    const joined = await verify([rotated, fresh]);
    expect(joined.code, joined.stdout).toBe(0);
    expect(joined.stdout).toContain(`${fresh}: joins ${rotated}: line 1 continues from line 10\n`);
    // copytruncate: the copy was taken at line 7; lines 8-10 were written before the truncation.
    const copy = file(old.slice(0, 7));
    const gap = await verify([copy, fresh]);
    expect(gap.code).toBe(1);
    expect(gap.stdout).toContain(
      `${fresh}: NOT INTACT: lines 8-10 of ${copy} are in neither file: lost, e.g. to ` +
        `a copytruncate rotation (line 1 continues from line 10)\n`,
    );
    const alone = await verify([fresh]);
    expect(alone.code).toBe(0);
    expect(alone.stdout).toContain(
      `${fresh}: line 1 continues an earlier file (its writer last knew line 10 of ` +
        `the log before it was rotated or cut short): give that file before this one to check the join\n`,
    );
    const edited = [...old];
    edited[9] = chained(10, { tag: 'y' })[9]!;
    const other = await verify([file(edited), fresh]);
    expect(other.code).toBe(1);
    expect(other.stdout).toMatch(/line 1 continues from line 10 of a log, which .* does not hold as written/);
  });

  it('what is not a regular file (a FIFO, /dev/zero) is refused at once, exit 2, one line', async () => {
    notOnWindows('FIFOs and /dev/zero');
    const fifo = join(tmp.dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    for (const path of [fifo, '/dev/zero']) {
      const result = await verify([path]);
      expect(result.code, path).toBe(2);
      expect(result.error).toBe(`${path} is not a regular file (a FIFO or a device has no end to check)`);
      expect(result.hint).toBe('give log verify the --log files to check');
      expect(result.stdout).toBe('');
    }
  });
});

describe('fraudctl log verify, as a process: argv → exit code', () => {
  const fraudctl = (args: string[]) => runCli(['log', 'verify', ...args], { env: env() });

  it('0 intact, 1 a break (said on stderr), 2 a bad --expect or what is not a file, before any is read', async () => {
    const lines = chained(3);
    const whole = file(lines);
    expect(await fraudctl([whole])).toMatchObject({ code: 0, stderr: '' });
    const edited = file([lines[0]!, lines[1]!.replace('alice', 'bob'), lines[2]!]);
    expect(await fraudctl([edited])).toMatchObject({
      code: 1,
      stderr: `error: ${edited} is not intact (line 2)\n`,
    });
    const bad = await fraudctl([whole, '--expect', 'abc']);
    expect(bad).toMatchObject({
      code: 2,
      stdout: '',
      stderr: 'error: --expect takes a line\'s hash, 64 hex digits, as log verify prints it (got "abc")\n',
    });
    const missing = join(tmp.dir, 'no-such.log');
    const absent = await fraudctl([whole, missing]);
    expect(absent.code).toBe(2);
    expect(absent.stdout).toBe('');
    expect(absent.stderr).toMatch(/^error: .*no-such\.log/);
  });
});
