import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { TOPIC_TEXTS } from '../../src/help-topics/topics.js';
import { cliEnv } from '../support/cli.js';
import { runInProcess } from '../support/in-process-cli.js';

const SRC = fileURLToPath(new URL('../../src', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : /\.(ts|json)$/.test(name) ? [path] : [];
  });
}

describe('fraudctl help TOPIC', () => {
  it("prints exit-codes and environment, exit 0; a command's help as --help does", async () => {
    const [codes, environment, configSet, setHelp] = await Promise.all([
      runInProcess(['help', 'exit-codes'], cliEnv()),
      runInProcess(['help', 'environment'], cliEnv()),
      runInProcess(['help', 'config', 'set'], cliEnv()),
      runInProcess(['config', 'set', '--help'], cliEnv()),
    ]);
    expect(codes.code).toBe(0);
    expect(codes.stdout).toMatch(/^ {2}141 {2}stdout's reader went away/m);
    expect(environment.code).toBe(0);
    expect(environment.stdout).toContain('FRAUDCTL_BASE_URL');
    expect(configSet.code).toBe(0);
    expect(configSet.stdout).toBe(setHelp.stdout);
  });

  it('the exit-code tables of --help and help exit-codes list the same codes, 143 (SIGTERM) among them', async () => {
    const [root, topic] = await Promise.all([
      runInProcess(['--help'], cliEnv()),
      runInProcess(['help', 'exit-codes'], cliEnv()),
    ]);
    const codes = (text: string) => [...text.matchAll(/^ {2}(\d+) {2,}\S/gm)].map((m) => Number(m[1]));
    expect(codes(root.stdout)).toEqual([0, 1, 2, 3, 4, 5, 6, 129, 130, 141, 143]);
    expect(codes(topic.stdout)).toEqual(codes(root.stdout));
    expect(topic.stdout).toMatch(/^ {2}143 {2}terminated \(SIGTERM/m);
  });

  it('names the topics in the root help, and refuses one it does not know: exit 2 with a hint that works', async () => {
    const root = await runInProcess(['--help'], cliEnv());
    expect(root.stdout).toMatch(/^Help topics \(fraudctl help TOPIC\):\n {2}exit-codes /m);
    const unknown = await runInProcess(['help', 'exit-code'], cliEnv());
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe(
      'error: no command or help topic "exit-code"\nrun fraudctl help to list the commands and the topics\n',
    );
    const listed = await runInProcess(['help'], cliEnv());
    expect(listed.code).toBe(0);
    expect(listed.stdout).toBe(root.stdout);
  });

  it('environment names every FRAUDCTL_ variable the product reads', () => {
    const read = new Set<string>();
    for (const file of sourceFiles(SRC)) {
      // An error code of the client's own spelled like one is not a variable.
      for (const m of readFileSync(file, 'utf8').matchAll(/\bFRAUDCTL_[A-Z_]+\b/g))
        if (m[0] !== 'FRAUDCTL_BODY_TOO_LARGE') read.add(m[0]);
    }
    expect(read.size).toBeGreaterThanOrEqual(6);
    for (const name of read) expect(TOPIC_TEXTS.environment, name).toContain(name);
  });

  it('every topic fits 80 columns, so a terminal, the reference and the man page show it alike', () => {
    for (const [topic, text] of Object.entries(TOPIC_TEXTS)) {
      for (const line of text.split('\n')) expect(line.length, `${topic}: ${line}`).toBeLessThanOrEqual(80);
    }
  });
});
