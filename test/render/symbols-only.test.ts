import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/*
 * Every mark beyond ASCII that fraudctl prints comes from src/render/symbols.ts, so a locale
 * that is not UTF-8 gets ASCII everywhere: a string or template in any other source file that
 * holds such a character fails here (comments may hold anything). TypeScript's own scanner finds
 * the literals, so a `·` in a comment or a regular expression is not mistaken for one.
 */

const SRC = fileURLToPath(new URL('../../src', import.meta.url));
// evaluate --html writes a file that names its own charset (UTF-8): no locale decides how it reads.
const ALLOWED = new Set([join('render', 'symbols.ts'), join('commands', 'evaluate', 'render-html.ts')]);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sources(join(dir, e.name))
      : e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')
        ? [join(dir, e.name)]
        : [],
  );
}

const LITERALS = new Set([
  ts.SyntaxKind.StringLiteral,
  ts.SyntaxKind.NoSubstitutionTemplateLiteral,
  ts.SyntaxKind.TemplateHead,
  ts.SyntaxKind.TemplateMiddle,
  ts.SyntaxKind.TemplateTail,
]);

/** The text of each string and template part in `file` that holds a character beyond ASCII. */
function nonAsciiLiterals(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    // The literal as written: escapes (`\u001b[K`, `\uFEFF` for a byte-order mark looked for) are deliberate.
    const written = LITERALS.has(node.kind) ? node.getText(source) : '';
    if ([...written].some((ch) => ch.codePointAt(0)! > 0x7e)) {
      found.push(`line ${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}: ${written.slice(0, 60)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('marks beyond ASCII come from symbols.ts', () => {
  it('no other source file prints one', () => {
    const offenders = sources(SRC)
      .filter((file) => !ALLOWED.has(relative(SRC, file)))
      .flatMap((file) => nonAsciiLiterals(file).map((where) => `${relative(SRC, file)} ${where}`));
    expect(offenders).toEqual([]);
  });
});
