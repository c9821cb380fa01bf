import { describe, expect, it } from 'vitest';
import { bindingsFor, keySummary } from '../../src/review-queue/keymap.js';
import { reviewCommand } from '../../src/commands/review/command.js';

/*
 * `review --help` names the keys from the one table of keys.
 */

describe('the keys in review --help', () => {
  it('are every key on an event, in the table’s order, as the table names them', () => {
    expect(keySummary()).toBe(
      'a approve, d decline, e escalate, f confirm fraud, c comment, s skip, v view all, ? help, q quit',
    );
    expect(
      keySummary()
        .split(', ')
        .map((k) => k.split(' ')[0]),
    ).toEqual(bindingsFor('event').map((b) => b.shown));
  });

  it('are what the command’s help prints', () => {
    const command = reviewCommand({} as Parameters<typeof reviewCommand>[0]);
    let help = '';
    command.configureOutput({ writeOut: (text) => (help += text) });
    command.outputHelp();
    expect(help).toContain(`Keys: ${keySummary()}.\n`);
    // The reason keys: the numbers, Enter for none, Esc, and that require-reason needs one.
    expect(help).toContain(
      "After a decision key, the profile's reason codes for it (config set reasons): 1-9 the reason code by that number, Enter none, Esc back; with require-reason true a change of state needs one.\n",
    );
  });
});
