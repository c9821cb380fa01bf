import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ChainWalker, checkSeal, fileLines, GENESIS, lineHash, sealLine } from '../../src/action-log/log-chain.js';

/** A sealed, chained log of `count` lines, as the writer makes it. */
function chainedLines(count: number): string[] {
  const lines: string[] = [];
  let prev = GENESIS;
  for (let line = 1; line <= count; line++) {
    const text = sealLine(JSON.stringify({ eventId: `ord-${line}`, analyst: 'alice', line, prev }));
    lines.push(text);
    prev = lineHash(Buffer.from(text));
  }
  return lines;
}

function walk(lines: string[], ended = true): Array<[number, string]> {
  const walker = new ChainWalker();
  return lines.flatMap((text, i) => {
    const found = walker.step(Buffer.from(text), ended || i < lines.length - 1);
    return found ? [[found.line, found.kind] as [number, string]] : [];
  });
}

describe('a line sealed with its own hash', () => {
  it('holds as written, and an edit of any byte breaks it', () => {
    const [line] = chainedLines(1);
    expect(checkSeal(Buffer.from(line!))).toBe('sealed');
    expect(checkSeal(Buffer.from(line!.replace('alice', 'bob')))).toBe('broken');
    expect(checkSeal(Buffer.from(JSON.stringify({ eventId: 'a', line: 1, prev: GENESIS })))).toBe('unsealed');
  });
});

describe('ChainWalker', () => {
  it('finds nothing in a whole chain', () => {
    expect(walk(chainedLines(5))).toEqual([]);
  });

  it('names an edited last line, which the next line could not show', () => {
    const lines = chainedLines(4);
    lines[3] = lines[3]!.replace('alice', 'bob');
    expect(walk(lines)).toEqual([[4, 'edited']]);
  });

  it('names every break, each edit once', () => {
    const lines = chainedLines(8);
    lines[1] = lines[1]!.replace('alice', 'bob');
    lines[5] = lines[5]!.replace('alice', 'eve');
    expect(walk(lines)).toEqual([
      [2, 'edited'],
      [6, 'edited'],
    ]);
  });

  it('names a line copied in from another log', () => {
    const lines = chainedLines(4);
    const other = chainedLines(2).map((l) => l.replace('ord-', 'x-'));
    expect(checkSeal(Buffer.from(other[1]!))).toBe('broken');
    lines.splice(2, 0, chainedLines(3)[2]!.replace('"ord-3"', '"ord-9"'));
    expect(walk(lines).map(([n]) => n)).toContain(3);
  });

  it('tells CRLF endings and a missing final line feed from edits', () => {
    const lines = chainedLines(3);
    expect(walk(lines.map((l) => `${l}\r`))).toEqual([
      [1, 'crlf'],
      [2, 'crlf'],
      [3, 'crlf'],
    ]);
    expect(walk(lines, false)).toEqual([[3, 'unterminated']]);
  });
});

describe('fileLines', () => {
  it('gives a line far longer than a chunk whole, and refuses what is not a regular file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chain-'));
    const file = join(dir, 'log');
    const long = 'x'.repeat(300_000);
    writeFileSync(file, `a\n${long}\nb`);
    const got: Array<[number, boolean]> = [];
    for await (const { bytes, ended } of fileLines(file)) got.push([bytes.length, ended]);
    expect(got).toEqual([
      [1, true],
      [300_000, true],
      [1, false],
    ]);
    await expect(async () => {
      for await (const _ of fileLines(dir)) void _;
    }).rejects.toThrow();
  });
});
