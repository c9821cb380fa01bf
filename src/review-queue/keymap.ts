import type { ActionName, Key, Mode } from './queue-model.js';
import { sym } from '../render/symbols.js';

/*
 * The one table of keys (as lazygit and tig have it): it decides what a key does in each mode,
 * and it is what the `?` screen (help-screen.ts), the key bar and `review --help` show, so they
 * never disagree. The command tree reads it at every start, so it imports only what main has
 * loaded already (symbols.ts).
 */

export type Command =
  ActionName | 'skip' | 'view' | 'help' | 'quit' | 'retry' | 'scrollDown' | 'scrollUp' | 'pageDown' | 'pageUp' | 'back';

/** Where a binding applies: the modes of the model, with the two failure modes told apart. */
export type KeyContext = 'event' | 'failed' | 'view';

export interface Binding {
  /** What is pressed: a character (`a`, `?`) or readline's name of a key (`escape`, `up`, `pagedown`). */
  keys: readonly string[];
  /** How the key is written in the bar and on `?`. */
  shown: string;
  /** One or two words for the key bar. */
  label: string;
  /** A sentence for the `?` screen. */
  help: string;
  command: Command;
  contexts: readonly KeyContext[];
  /** Shown in the key bar (the rest only on `?`). */
  inBar: boolean;
  /** How `review --help` names it, where the bar's one word is too short (`confirm fraud`). */
  named?: string;
}

export const KEYMAP: readonly Binding[] = [
  {
    keys: ['a'],
    shown: 'a',
    label: 'approve',
    help: 'approve: sets APPROVED (asks for a comment first)',
    command: 'approve',
    contexts: ['event'],
    inBar: true,
  },
  {
    keys: ['d'],
    shown: 'd',
    label: 'decline',
    help: 'decline: sets DECLINED (asks for a comment first)',
    command: 'decline',
    contexts: ['event'],
    inBar: true,
  },
  {
    keys: ['e'],
    shown: 'e',
    label: 'escalate',
    help: 'escalate: sets ESCALATED, for a senior analyst (asks for a comment first)',
    command: 'escalate',
    contexts: ['event'],
    inBar: true,
  },
  {
    keys: ['f'],
    shown: 'f',
    label: 'fraud',
    named: 'confirm fraud',
    help: 'confirm fraud: FRAUD_CONFIRMED; from a review state this is two changes, DECLINED then FRAUD_CONFIRMED',
    command: 'fraud',
    contexts: ['event'],
    inBar: true,
  },
  {
    keys: ['c'],
    shown: 'c',
    label: 'comment',
    help: 'comment only: record a comment; the event and its state stay as they are',
    command: 'comment',
    contexts: ['event'],
    inBar: true,
  },
  {
    keys: ['s'],
    shown: 's',
    label: 'skip',
    help: 'skip: give the event back (PENDING_REVIEW) and go to the next one',
    command: 'skip',
    contexts: ['event', 'failed'],
    inBar: true,
  },
  {
    keys: ['r'],
    shown: 'r',
    label: 'retry',
    help: 'retry what failed (after a network or service failure)',
    command: 'retry',
    contexts: ['failed'],
    inBar: true,
  },
  {
    keys: ['v'],
    shown: 'v',
    label: 'view all',
    help: 'view everything: the event and alerts tables of `show` and `alerts`',
    command: 'view',
    contexts: ['event'],
    inBar: true,
  },
  {
    keys: ['j', 'down', 'return'],
    get shown() {
      return `j ${sym.down}`;
    },
    label: 'down',
    help: 'scroll down a line',
    command: 'scrollDown',
    contexts: ['view'],
    inBar: true,
  },
  {
    keys: ['k', 'up'],
    get shown() {
      return `k ${sym.up}`;
    },
    label: 'up',
    help: 'scroll up a line',
    command: 'scrollUp',
    contexts: ['view'],
    inBar: true,
  },
  {
    keys: ['space', 'pagedown'],
    shown: 'space',
    label: 'page down',
    help: 'scroll down a page',
    command: 'pageDown',
    contexts: ['view'],
    inBar: true,
  },
  {
    keys: ['b', 'pageup'],
    shown: 'b',
    label: 'page up',
    help: 'scroll up a page',
    command: 'pageUp',
    contexts: ['view'],
    inBar: true,
  },
  {
    keys: ['v', 'escape', 'q'],
    shown: 'v esc',
    label: 'back',
    help: 'back to the event',
    command: 'back',
    contexts: ['view'],
    inBar: true,
  },
  {
    keys: ['?'],
    shown: '?',
    label: 'help',
    help: 'this help',
    command: 'help',
    contexts: ['event', 'failed', 'view'],
    inBar: true,
  },
  {
    keys: ['q'],
    shown: 'q',
    label: 'quit',
    help: 'quit: give the event on screen back, then show the session summary',
    command: 'quit',
    contexts: ['event', 'failed'],
    inBar: true,
  },
];

/** Keys of the comment line (its own small editor), for the `?` screen and the prompt. */
export const COMMENT_KEYS: readonly (readonly [string, string])[] = [
  ['Enter', "send the change with this comment (empty: the state alone, or the reason after the event's comment)"],
  ['Esc', 'back to the keys, nothing sent'],
  ['Tab', "a decision's comment: keep the event's, yours after (Tab again: replace it); c keeps it unless Tab"],
  [`${sym.left} ${sym.arrow} Home End`, 'move; Ctrl-A / Ctrl-E to the start / end'],
  ['Backspace Del', 'delete; Ctrl-U the whole line, Ctrl-W a word'],
];

/** The most reason codes offered after a decision key: one digit each, 1 to 9. */
export const MAX_REASON_KEYS = 9;

/**
 * Keys after a decision key when the profile has reason codes for it (`config set reasons`):
 * for the `?` screen and `review --help`. The digit of a code is shown beside it on screen.
 */
export const REASON_KEYS: readonly (readonly [string, string])[] = [
  [`1-${MAX_REASON_KEYS}`, 'the reason code by that number'],
  ['Enter', 'none'],
  ['Esc', 'back'],
];

export const ALWAYS_KEYS: readonly (readonly [string, string])[] = [
  ['Ctrl-C', 'stop now: the event on screen is given back, then the summary'],
];

export function keyContext(mode: Mode): KeyContext | null {
  switch (mode.name) {
    case 'keys':
      return 'event';
    case 'loadFailed':
    case 'sendFailed':
      return 'failed';
    case 'view':
      return 'view';
    default:
      return null;
  }
}

/** The command a key means in this context, if any. */
export function commandFor(context: KeyContext, text: string | undefined, key: Key): Command | null {
  if (key.ctrl || key.meta) return null;
  for (const binding of KEYMAP) {
    if (!binding.contexts.includes(context)) continue;
    for (const k of binding.keys) {
      if (k.length === 1 ? text === k : key.name === k) return binding.command;
    }
  }
  return null;
}

export function bindingsFor(context: KeyContext): Binding[] {
  return KEYMAP.filter((b) => b.contexts.includes(context));
}

/** `a approve  d decline …`: the bar of keys at the bottom of the screen. */
export function keyBar(context: KeyContext): { key: string; label: string }[] {
  return bindingsFor(context)
    .filter((b) => b.inBar)
    .map((b) => ({ key: b.shown, label: b.label }));
}

/** The reason keys in one sentence, for `review --help` and the `?` screen. */
export function reasonKeySummary(): string {
  return `After a decision key, the profile's reason codes for it (config set reasons): ${reasonKeys()}; with require-reason true a change of state needs one.`;
}

/** `1-9 the code shown…, Enter none, Esc back`: the reason keys in a line (the `?` screen). */
export function reasonKeys(): string {
  return REASON_KEYS.map(([k, h]) => `${k} ${h}`).join(', ');
}

/** `a approve, d decline, …`: the keys on an event, for `review --help`. */
export function keySummary(): string {
  return bindingsFor('event')
    .map((b) => `${b.shown} ${b.named ?? b.label}`)
    .join(', ');
}
