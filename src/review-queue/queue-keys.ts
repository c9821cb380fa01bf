import { commentTooLong } from '../contract/limits.js';
import { createStyle } from '../render/colours.js';
import { logEntry } from '../action-log/log-entries.js';
import { codesFor, reasonsHint } from '../state-changes/reasons.js';
import { commentPlan, editLine, insertText } from './comment-editor.js';
import { helpLines, helpPageSize } from './help-screen.js';
import { commandFor, keyContext, MAX_REASON_KEYS, type Command } from './keymap.js';
import {
  advance,
  andThen,
  leave,
  logEffect,
  note,
  notice,
  preceded,
  quit,
  withCurrent,
  type Result,
} from './queue-moves.js';
import { withOutcome } from './queue-outcomes.js';
import { startSending, targetOf } from './queue-sending.js';
import { eventScreenFit } from './queue-view.js';
import { viewPageSize } from './screen-layout.js';
import type { ActionName, Group, Key, Model, Sending } from './queue-model.js';

/*
 * Keys and pastes: what the analyst asks for, as the key table says (keymap.ts), in the mode the
 * queue is in. Returns [model, effects]. A key typed ahead for an event not yet drawn, or taken
 * on a window too small to show every key, does nothing (q and Ctrl-C aside); a paste is text
 * for the comment line, never keys; an empty comment is never sent.
 */

/** Colour does not change what fits: the screen's fit is judged without it. */
const PLAIN = createStyle(0);

/**
 * True while the window is too small for the event screen (queue-view.ts says what it needs):
 * its keys are not all on screen, so none of them is taken, q and Ctrl-C aside.
 */
export function tooSmall(model: Model): boolean {
  const { current, mode } = model;
  if (!current || mode.name === 'help' || mode.name === 'view' || mode.name === 'done') return false;
  return !eventScreenFit(model, current, model.screen.width, model.screen.height, PLAIN).fits;
}

/** A key or a paste that arrived while another event (or none) was on screen: it was meant for that one. */
function staleInput(model: Model, shown: string | null | undefined): boolean {
  return shown !== undefined && shown !== (model.current?.id ?? null);
}

/**
 * A comment alone (c) keeps the event's comment unless Tab says otherwise, as set-state's
 * question does: adding a note is not a reason to erase a colleague's. A decision shows the
 * comment it would replace, and Tab keeps it.
 */
function keepsByDefault(action: ActionName): boolean {
  return action === 'comment';
}

/**
 * A decision key: the profile's reason codes for it offered first (one number key each), when it
 * has any; else the comment line. A profile that requires a reason and has none for this change
 * of state sends nothing, and says so (as set-state refuses it: state-changes/reasons.ts).
 */
function decisionKey(model: Model, action: ActionName): Result {
  const target = targetOf(action);
  const theirs = model.current?.othersState ?? null;
  // A colleague decided it while it was open here: one more key does not overturn that; it asks.
  if (theirs !== null && target !== null && target !== theirs) {
    return [{ ...model, mode: { name: 'overturn', action, state: theirs } }, []];
  }
  return reasonsOrComment(model, action);
}

/** A key while asked whether to overturn a colleague's decision: y goes on, any other key back (nothing sent). */
function onOverturnKey(
  model: Model,
  mode: Extract<Model['mode'], { name: 'overturn' }>,
  text: string | undefined,
  key: Key,
): Result {
  if ((text === 'y' || text === 'Y') && !key.ctrl && !key.meta) {
    return reasonsOrComment(withCurrent(model, { othersState: null }), mode.action);
  }
  const kept = notice('info', `nothing sent: ${mode.state} stays as they set it`);
  return [{ ...withCurrent(model, { notice: kept }), mode: { name: 'keys' } }, []];
}

/** After a decision key (and a colleague's decision overturned knowingly): the reason codes, or the comment line. */
function reasonsOrComment(model: Model, action: ActionName): Result {
  const keep = keepsByDefault(action);
  const commentLine: Model['mode'] = { name: 'comment', action, text: '', cursor: 0, keep, reason: null };
  const choices = model.options.reasons;
  if (!choices || (choices.codes.length === 0 && !choices.required)) return [{ ...model, mode: commentLine }, []];
  const target = targetOf(action);
  const codes = codesFor({ profile: choices.profile, reasons: choices.codes, requireReason: choices.required }, target);
  // A comment alone changes no state: a reason is offered, never required (as set-state).
  const required = choices.required && target !== null;
  if (codes.length > 0) {
    return [
      {
        ...withCurrent(model, { notice: null }),
        mode: {
          name: 'reason',
          action,
          codes: codes.slice(0, MAX_REASON_KEYS),
          more: Math.max(0, codes.length - MAX_REASON_KEYS),
          required,
        },
      },
      [],
    ];
  }
  if (!required) return [{ ...model, mode: commentLine }, []];
  return [
    withCurrent(model, {
      notice: notice(
        'error',
        `not sent: profile ${JSON.stringify(choices.profile)} requires a reason for a change of state, and has no code for ${target}`,
        reasonsHint(choices.profile),
      ),
    }),
    [],
  ];
}

/** A key while the reason codes are offered: a number picks one, Enter none (unless required), Esc goes back. */
function onReasonKey(
  model: Model,
  mode: Extract<Model['mode'], { name: 'reason' }>,
  text: string | undefined,
  key: Key,
): Result {
  const toComment = (reason: string | null): Result => [
    {
      ...withCurrent(model, { notice: null }),
      mode: { name: 'comment', action: mode.action, text: '', cursor: 0, keep: keepsByDefault(mode.action), reason },
    },
    [],
  ];
  // A lone Esc comes as escape with meta set (readline): checked before meta keys are ignored.
  if (key.name === 'escape') return [{ ...withCurrent(model, { notice: null }), mode: { name: 'keys' } }, []];
  if (key.ctrl || key.meta) return [model, []];
  if (key.name === 'return' || key.name === 'enter') {
    if (!mode.required) return toComment(null);
    const profile = JSON.stringify(model.options.reasons?.profile ?? '');
    return [
      withCurrent(model, {
        notice: notice(
          'warn',
          `profile ${profile} requires a reason for a change of state: press 1-${mode.codes.length} (Esc: back, nothing sent)`,
        ),
      }),
      [],
    ];
  }
  if (text === '?') return [{ ...model, mode: { name: 'help', back: mode, scroll: 0 } }, []];
  const digit = text !== undefined && /^[1-9]$/.test(text) ? Number(text) : 0;
  const code = mode.codes[digit - 1];
  return code === undefined ? [model, []] : toComment(code);
}

function onCommand(model: Model, command: Command): Result {
  const current = model.current;
  switch (command) {
    case 'approve':
    case 'decline':
    case 'escalate':
    case 'fraud':
    case 'comment':
      if (!current) return [model, []];
      return decisionKey(model, command);
    case 'skip': {
      if (model.mode.name === 'loadFailed') {
        const id = model.entries[model.index]!.id;
        const loads = new Map(model.loads);
        loads.delete(model.index);
        const skipped = logEffect(
          logEntry({ eventId: id, action: 'skip', from: null, to: null }, 'ok', {
            message: `skipped: it could not be loaded (${model.mode.message})`,
          }),
        );
        return preceded(
          [skipped],
          advance(note(withOutcome({ ...model, loads }, 'skipped', id), id, 'skipped, it could not be loaded')),
        );
      }
      const group: Group = model.mode.name === 'sendFailed' ? 'notSent' : 'skipped';
      return andThen(leave(model, group, 'skip'), (left) => advance({ ...left, current: null, notes: [] }));
    }
    case 'retry':
      if (model.mode.name === 'loadFailed') {
        const loads = new Map(model.loads);
        loads.set(model.index, { kind: 'pending' });
        return [
          { ...model, loads, mode: { name: 'loading' } },
          [{ type: 'load', index: model.index, id: model.entries[model.index]!.id }],
        ];
      }
      if (model.mode.name === 'sendFailed' && current) {
        const sending: Sending = { ...model.mode.sending, phase: 'reread' };
        return [{ ...model, mode: { name: 'sending', sending } }, [{ type: 'reread', id: current.id }]];
      }
      return [model, []];
    case 'view':
      if (!current) return [model, []];
      return [
        {
          ...model,
          mode: {
            name: 'view',
            lines: null,
            scroll: 0,
            page: viewPageSize(model, model.screen.width, model.screen.height),
          },
        },
        [{ type: 'renderView', id: current.id, summary: current.summary, assessment: current.assessment }],
      ];
    case 'help':
      return [{ ...model, mode: { name: 'help', back: model.mode, scroll: 0 } }, []];
    case 'quit':
      return quit(model, 'quit');
    case 'back':
      return [{ ...model, mode: { name: 'keys' } }, []];
    case 'scrollDown':
    case 'scrollUp':
    case 'pageDown':
    case 'pageUp': {
      if (model.mode.name !== 'view') return [model, []];
      const { page } = model.mode;
      const delta = command === 'scrollDown' ? 1 : command === 'scrollUp' ? -1 : command === 'pageDown' ? page : -page;
      const max = Math.max(0, (model.mode.lines?.length ?? 0) - page);
      const scroll = Math.min(max, Math.max(0, model.mode.scroll + delta));
      return [{ ...model, mode: { ...model.mode, scroll } }, []];
    }
  }
}

/**
 * A bracketed paste: on the comment line, text (one line, up to the limit; Enter still sends);
 * anywhere else ignored, with a word, so that pasted text is never taken as keys.
 */
export function onPaste(model: Model, text: string, shown: string | null | undefined): Result {
  const mode = model.mode;
  if (staleInput(model, shown) || tooSmall(model)) return [model, []];
  if (mode.name === 'comment') {
    const result = insertText({ text: mode.text, cursor: mode.cursor }, text);
    if (result.kind !== 'edit') return [model, []];
    return [
      {
        ...withCurrent(model, { notice: null }),
        mode: { ...mode, text: result.line.text, cursor: result.line.cursor },
      },
      [],
    ];
  }
  if (!model.current || mode.name === 'help') return [model, []];
  return [
    withCurrent(model, {
      notice: notice('info', 'paste ignored: a paste is taken only as a comment (press a, d, e, f or c first)'),
    }),
    [],
  ];
}

/** A key on the comment line: its editor, Tab (keep or replace the event's comment), Enter (send). */
function onCommentKey(
  model: Model,
  mode: Extract<Model['mode'], { name: 'comment' }>,
  text: string | undefined,
  key: Key,
): Result {
  const existing = model.current?.seenComments ?? null;
  // Tab: keep the event's comment (this one is added after it), or replace it again.
  if (key.name === 'tab' && !key.ctrl && !key.meta) {
    if (existing === null || existing.trim() === '') return [model, []];
    return [{ ...model, mode: { ...mode, keep: !mode.keep } }, []];
  }
  const result = editLine({ text: mode.text, cursor: mode.cursor }, text, key);
  switch (result.kind) {
    case 'edit':
      return [{ ...model, mode: { ...mode, text: result.line.text, cursor: result.line.cursor } }, []];
    case 'cancel':
      return [{ ...model, mode: { name: 'keys' } }, []];
    case 'ignored':
      return [model, []];
    case 'submit': {
      // The reason at the head of what this analyst adds, in set-state's one form: `[reason: CODE] text`.
      const plan = commentPlan(existing, mode.text, mode.reason, mode.keep);
      if (mode.action === 'comment' && plan.comments === null) {
        return [
          {
            ...withCurrent(model, { notice: notice('info', 'nothing sent: a comment needs some text') }),
            mode: { name: 'keys' },
          },
          [],
        ];
      }
      const problem = plan.comments === null ? null : commentTooLong(plan.comments);
      // With the comment the event has kept, or the reason at its head, it would be over the service's limit: nothing is sent.
      if (problem !== null) {
        const why = !plan.keeps
          ? 'with the reason at its head: shorten yours'
          : plan.empty
            ? 'with the comment it keeps'
            : 'with the comment it keeps: shorten yours, or Tab to replace it';
        return [withCurrent(model, { notice: notice('error', `${problem} ${why}`) }), []];
      }
      return startSending(model, mode.action, plan.comments, mode.reason);
    }
  }
}

export function onKey(model: Model, text: string | undefined, key: Key, shown?: string | null): Result {
  if (key.ctrl && key.name === 'c') return quit(model, 'interrupt');
  // Typed ahead while the next event loaded: it was meant for the one before.
  if (staleInput(model, shown)) return [model, []];
  const mode = model.mode;
  if (tooSmall(model))
    return text === 'q' && !key.ctrl && !key.meta
      ? quit(model, 'quit')
      : [{ ...model, keysNotTaken: model.keysNotTaken + 1 }, []];
  // A help longer than the screen scrolls with the keys that scroll the view; any other key goes back to where `?` was pressed.
  if (mode.name === 'help') {
    const command = commandFor('view', text, key);
    const page = helpPageSize(model.screen.height);
    const max = Math.max(0, helpLines(model.screen.width).length - page);
    const delta =
      command === 'scrollDown'
        ? 1
        : command === 'scrollUp'
          ? -1
          : command === 'pageDown'
            ? page
            : command === 'pageUp'
              ? -page
              : null;
    if (delta === null || max === 0) return [{ ...model, mode: mode.back }, []];
    return [{ ...model, mode: { ...mode, scroll: Math.min(max, Math.max(0, mode.scroll + delta)) } }, []];
  }
  if (mode.name === 'comment') return onCommentKey(model, mode, text, key);
  if (mode.name === 'reason') return onReasonKey(model, mode, text, key);
  if (mode.name === 'overturn') return onOverturnKey(model, mode, text, key);
  const context = keyContext(mode);
  if (context === null) return [model, []];
  const command = commandFor(context, text, key);
  if (command === null) return [model, []];
  return onCommand(model, command);
}
