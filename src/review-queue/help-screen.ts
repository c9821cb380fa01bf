import { displayWidth, wrapToWidth } from '../render/display-width.js';
import { ALWAYS_KEYS, bindingsFor, COMMENT_KEYS, keyBar, reasonKeys, type KeyContext } from './keymap.js';

/*
 * The `?` screen's text, from the one table of keys (keymap.ts): every key on an event, the
 * reason keys, the comment line's keys, the failure and view bars, wrapped to the width and never cut.
 */

/**
 * The `?` screen's lines for a width, from the same table: each key's text wrapped under itself,
 * never cut. Longer than the screen, it scrolls (helpPageSize).
 */
export function helpLines(width: number): string[] {
  const w = Math.max(20, width);
  const rows = (entries: readonly (readonly [string, string])[]) => {
    const keyWidth = Math.max(...entries.map(([k]) => displayWidth(k)));
    const indent = 2 + keyWidth + 2;
    return entries.flatMap(([k, h]) =>
      wrapToWidth(h, w - indent).map((line, i) =>
        i === 0 ? `  ${k}${' '.repeat(keyWidth - displayWidth(k))}  ${line}` : `${' '.repeat(indent)}${line}`,
      ),
    );
  };
  const paragraph = (text: string, indent = 0) =>
    wrapToWidth(text, w - indent).map((line) => `${' '.repeat(indent)}${line}`);
  const bar = (context: KeyContext) =>
    keyBar(context)
      .map(({ key, label }) => `${key} ${label}`)
      .join('  ');
  return [
    'On an event',
    ...rows(bindingsFor('event').map((b) => [b.shown, b.help] as const)),
    ...paragraph(`After a decision key: ${reasonKeys()}`),
    'Writing a comment',
    ...rows(COMMENT_KEYS),
    ...paragraph(`After a failure: ${bar('failed')}`),
    ...paragraph(`Viewing everything (v): ${bar('view')}`),
    ...paragraph(`Any time: ${ALWAYS_KEYS.map(([k, h]) => `${k} ${h}`).join('; ')}`),
  ];
}

/** Rows of the `?` screen that show help lines: a title line above them and a line of keys below. */
export function helpPageSize(height: number): number {
  return Math.max(1, Math.max(4, height) - 2);
}
