/*
 * Commands printed as hints: a hint must work when pasted as it is, so every word that a POSIX
 * shell would split or expand is quoted, and only those.
 */

/** A word for a POSIX shell, quoted only when it needs to be. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9._:/@%+=,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The words of a command, each quoted as it needs, with spaces between. */
export function shellCommand(words: readonly string[]): string {
  return words.map(shellWord).join(' ');
}
