import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { shellCommand, shellWord } from '../../src/render/shell-command.js';

describe('shellWord and shellCommand', () => {
  it('quote only the words a shell would split or expand', () => {
    expect(shellWord("it's")).toBe(`'it'\\''s'`);
    expect(shellWord('https://fraud.example.com:8443/api')).toBe('https://fraud.example.com:8443/api');
    expect(shellCommand(['fraudctl', 'submit', 'rejects.jsonl', '--profile', 'night shift'])).toBe("fraudctl submit rejects.jsonl --profile 'night shift'");
  });

  it('give a POSIX shell back exactly the words, whatever they hold', () => {
    const words = ["it's", 'two words', '$HOME', '`id`', 'a;b', '*', 'new\nline', '', 'plain'];
    const printed = execFileSync('sh', ['-c', `printf '%s\\0' ${shellCommand(words)}`], { encoding: 'utf8' });
    expect(printed.split('\0').slice(0, -1)).toEqual(words);
  });
});
