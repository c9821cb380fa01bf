import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

/*
 * Arrows point down: the command files (src/commands/) map argv to a work module's options and
 * call it; no work module imports from them (an import back was the project's one import cycle).
 * Only the command tree (src/program.ts) and the commands themselves may.
 */

const SRC = resolve(import.meta.dirname, '../src');
const COMMANDS = join(SRC, 'commands');
const ABOVE_COMMANDS = new Set([join(SRC, 'program.ts')]);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Every module a file names in an import, export … from, or import(): static and lazy alike. */
function imported(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/\b(?:from|import)\s*\(?\s*['"]([^'"]+)['"]/g)].map((m) => m[1]!);
  return specifiers.filter((s) => s.startsWith('.')).map((s) => resolve(dirname(file), s));
}

describe('layering', () => {
  it('no module outside src/commands/ (but the command tree) imports from it', () => {
    const offenders = sources(SRC)
      .filter((file) => !file.startsWith(`${COMMANDS}${sep}`) && !ABOVE_COMMANDS.has(file))
      .flatMap((file) => imported(file).filter((target) => target.startsWith(`${COMMANDS}${sep}`)).map((target) => `${relative(SRC, file)} → ${relative(SRC, target)}`));
    expect(offenders).toEqual([]);
  });

  it('finds such an import where there is one (the check can fail)', () => {
    expect(imported(join(SRC, 'program.ts')).some((target) => target.startsWith(`${COMMANDS}${sep}`))).toBe(true);
  });
});
