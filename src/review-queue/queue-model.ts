import type { FailureKind } from '../failures/failure-kind.js';
import type { ExitCodeValue } from '../errors/cli-error.js';
import type { Fields } from '../render/json-fields.js';
import type { ReasonCode } from '../profiles/reason-codes.js';

/*
 * The review queue's state, the messages that change it and the effects it asks for (Elm /
 * Bubble Tea): `update` (queue-update.ts) is pure, `view` (queue-view.ts) draws a model, and the
 * loop (queue-loop.ts) runs effects, whose results come back as messages.
 */

export interface QueueOptions {
  /** Move an event in PENDING_REVIEW to IN_REVIEW while it is on screen (default on). */
  claim: boolean;
  /** Also take events IN_REVIEW that this session did not claim (left by a session that died). */
  includeClaimed: boolean;
  /** Also show events no longer awaiting review. */
  includeDecided: boolean;
  /** Events fetched ahead of the one on screen (1; the benchmark compares with 0). */
  prefetch?: number;
  /** `--sla`: how long an event may wait for a decision (ms); null: only its age is shown. */
  sla?: number | null;
  /** The profile's reason codes (`config set reasons`, `require-reason`): offered after a decision key. */
  reasons?: ReasonChoices;
}

/** What the queue offers after a decision key: the profile's codes, and whether a change of state needs one. */
export interface ReasonChoices {
  profile: string;
  codes: readonly ReasonCode[];
  required: boolean;
}

/** What the analyst can do to an event; `comment` changes no state. */
export type ActionName = 'approve' | 'decline' | 'escalate' | 'fraud' | 'comment';

/** The groups of the end-of-session summary (and of the log's outcome). */
export type Group =
  | 'approved'
  | 'declined'
  | 'escalated'
  | 'fraudConfirmed'
  | 'commented'
  | 'givenBack'
  | 'leftUndecided'
  | 'skipped'
  | 'notFound'
  | 'invalidId'
  | 'refused'
  | 'otherState'
  | 'claimedElsewhere'
  | 'notSent'
  | 'notReached'
  | 'unreadable'
  | 'stillClaimed';

export const GROUP_ORDER: readonly Group[] = [
  'approved',
  'declined',
  'escalated',
  'fraudConfirmed',
  'commented',
  'givenBack',
  'leftUndecided',
  'skipped',
  'notFound',
  'invalidId',
  'refused',
  'otherState',
  'claimedElsewhere',
  'notSent',
  'notReached',
  'unreadable',
  'stillClaimed',
];

export interface QueueEntry {
  id: string;
}

export type LoadState =
  | { kind: 'pending' }
  | { kind: 'loaded'; summary: Fields; assessment: unknown; assessmentProblem: string | null }
  | { kind: 'failed'; failure: CallFailure };

/** The event on screen. */
export interface Current {
  id: string;
  summary: Fields;
  assessment: unknown;
  assessmentProblem: string | null;
  /** The state this session last saw or set: a decision is sent only while the service still has it. */
  seenState: string | null;
  seenComments: string | null;
  /** none: not claimed by this session; claiming: the claim is in flight; held: this session has it IN_REVIEW. */
  claim: 'none' | 'claiming' | 'held';
  /** The group of a state this session set on it (a decision of two steps may stop after the first). */
  decidedAs: Group | null;
  /** A line about the last thing that went wrong or changed (a refusal, a conflict), or null. */
  notice: Notice | null;
  /**
   * The state someone else set since this session opened the event (seen at a conflict), or
   * null: a decision that would change it is asked about first (mode `overturn`), never sent on
   * one more key.
   */
  othersState?: string | null;
}

export interface Notice {
  tone: 'info' | 'warn' | 'error';
  lines: string[];
}

/** A decision or a comment on its way: the states to set in order, the comment on the last one. */
export interface Sending {
  action: ActionName;
  steps: (string | null)[];
  step: number;
  comments: string | null;
  /** The reason code chosen (at the head of `comments` already), for the log's `reason`; null: none. */
  reason: string | null;
  /** waitClaim: the claim is still in flight; reread: checking the state; patch: the change is sent. */
  phase: 'waitClaim' | 'reread' | 'patch';
}

export type Mode =
  | { name: 'loading' }
  | { name: 'keys' }
  /**
   * After a decision key, when the profile has codes for it: one number key each (`codes`, at
   * most 9; `more`: those beyond, not offered), Enter for none unless `required`, Esc back.
   */
  | { name: 'reason'; action: ActionName; codes: readonly string[]; more: number; required: boolean }
  /** keep: the event's comment stays, this one is added after it (Tab); otherwise this one replaces it. reason: the code chosen, or null. */
  | { name: 'comment'; action: ActionName; text: string; cursor: number; keep: boolean; reason: string | null }
  /** A decision key on an event someone else decided meanwhile (`state`): y overturns it, any other key goes back. */
  | { name: 'overturn'; action: ActionName; state: string }
  | { name: 'sending'; sending: Sending }
  | { name: 'sendFailed'; sending: Sending; message: string }
  | { name: 'loadFailed'; message: string }
  /** page: the rows of tables a screen shows (screen-layout.ts), set on entering and on each resize, as a viewport's height is. */
  | { name: 'view'; lines: readonly string[] | null; scroll: number; page: number }
  | { name: 'help'; back: Mode; scroll: number }
  | { name: 'done' };

export interface Model {
  entries: readonly QueueEntry[];
  index: number;
  options: QueueOptions;
  loads: ReadonlyMap<number, LoadState>;
  current: Current | null;
  mode: Mode;
  /**
   * What became of each id so far, one outcome an id (the most telling: queue-outcomes.ts), in
   * the order they were last settled; the summary's groups are derived from it (groupsOf).
   */
  outcomes: ReadonlyMap<string, Outcome>;
  /** Lines of the id list that held no id (where they are): the summary's `unreadable` group. */
  unreadable: readonly string[];
  /** Notes about events passed over on the way to this one (shown on the next screen): the id, and why. */
  notes: readonly Note[];
  /** Claims in flight for events no longer on screen, and how to give each back when it lands. */
  abandoned: ReadonlyMap<string, 'release' | 'skip'>;
  /** Quitting was asked for (q, Ctrl-C, a signal); the session ends once nothing is being sent. */
  quitting: 'no' | 'quit' | 'interrupt';
  /**
   * A failure that ends the session (one that stops a run, src/failures/: the key refused, not
   * the service, the proxy; or the log that cannot take a line): its message, hint and exit code.
   */
  fatal: { message: string; hint?: string; exitCode: ExitCodeValue } | null;
  /** Why the log file could not be written, once it could not (the session then ends). */
  logProblem: string | null;
  /** The terminal's size, as the loop last reported it. */
  screen: { width: number; height: number };
  /** Keys not taken while the window was too small for the event screen (it says how many). */
  keysNotTaken: number;
  /** The eventDate (ms) of each event read (by --sort, or on the way to its screen): the summary's overdue count. */
  eventDates: ReadonlyMap<string, number>;
  /** When each decision this session sent was answered (ms): --sla judges a decided event then, not at the session's end. */
  decidedAt: ReadonlyMap<string, number>;
}

/** What became of an id: its group in the summary, and why where the group alone does not say. */
export interface Outcome {
  group: Group;
  /** The state as the service spelled it (otherState), the service's status and codes (invalidId, refused). */
  detail?: string;
}

export interface Note {
  id: string;
  text: string;
}

export type { LogEntry } from '../action-log/action-log.js';
import type { LogEntry } from '../action-log/action-log.js';

export type Effect =
  | { type: 'load'; index: number; id: string }
  | { type: 'claim'; id: string }
  | { type: 'release'; id: string; action: 'release' | 'skip' }
  | { type: 'reread'; id: string }
  /** `logged`: the log's line for it, written before it is sent (not sent when it cannot be: src/action-log/). */
  | { type: 'patch'; id: string; change: { state?: string; comments?: string }; logged: LogEntry }
  | { type: 'log'; entry: LogEntry }
  | { type: 'renderView'; id: string; summary: Fields; assessment: unknown };

/** A key as readline decodes it: `name` for named keys (return, escape, up…), `sequence` the raw text. */
export interface Key {
  name?: string | undefined;
  sequence?: string | undefined;
  ctrl?: boolean | undefined;
  meta?: boolean | undefined;
  shift?: boolean | undefined;
}

/** What a failed call says, in the terms the queue needs: what it means is decided in src/failures/. */
export interface CallFailure {
  kind: FailureKind;
  /** Every other call would meet it too: the session ends, its claims given back. */
  stopsRun: boolean;
  /** What the session exits with when it ends on this failure. */
  exitCode: ExitCodeValue;
  /** The service's status (for the log and the summary's detail), or null: no answer, or none of the service's. */
  status: number | null;
  message: string;
  hint?: string;
  /** The service's errorCodes (`eventId:INVALID_FORMAT`), when it sent the error shape. */
  codes?: readonly string[];
  requestId: string | null;
}

export type Msg =
  | { type: 'start' }
  | { type: 'resize'; width: number; height: number }
  /**
   * A key, and the event on screen when it arrived (`shown`: the id on the last frame drawn, null
   * for none; absent when not known): a key typed ahead never acts on an event not yet drawn.
   */
  | { type: 'key'; text: string | undefined; key: Key; shown?: string | null }
  /** A bracketed paste, whole: text for the comment line, never keys. */
  | { type: 'paste'; text: string; shown?: string | null }
  | { type: 'viewReady'; id: string; lines: readonly string[] }
  | { type: 'interrupt' }
  | { type: 'loaded'; index: number; summary: Fields; assessment: unknown; assessmentProblem: string | null }
  | { type: 'loadFailed'; index: number; failure: CallFailure }
  | { type: 'claimed'; id: string; summary: Fields | null; requestId: string | null }
  | { type: 'claimLost'; id: string; summary: Fields }
  | { type: 'claimFailed'; id: string; failure: CallFailure }
  | { type: 'released'; id: string; action: 'release' | 'skip'; requestId: string | null }
  | { type: 'releaseFailed'; id: string; action: 'release' | 'skip'; failure: CallFailure }
  | { type: 'reread'; id: string; summary: Fields }
  | { type: 'rereadFailed'; id: string; failure: CallFailure }
  /** `at`: when the answer came (ms; the effect runner's clock), so update stays pure. */
  | { type: 'patched'; id: string; summary: Fields | null; requestId: string | null; at?: number }
  | { type: 'patchFailed'; id: string; failure: CallFailure }
  /** The log could not take a line; `notSent`: the claim or change that was therefore not sent. */
  | { type: 'logFailed'; message: string; hint?: string; notSent?: { id: string; what: 'claim' | 'patch' } };

export function emptyGroups(): Record<Group, string[]> {
  return Object.fromEntries(GROUP_ORDER.map((g) => [g, []])) as unknown as Record<Group, string[]>;
}

export function initialModel(
  entries: readonly QueueEntry[],
  options: QueueOptions,
  screen: { width: number; height: number },
  unreadable: readonly string[] = [],
  eventDates: ReadonlyMap<string, number> = new Map(),
): Model {
  return {
    entries,
    index: -1,
    options,
    loads: new Map(),
    current: null,
    mode: { name: 'loading' },
    outcomes: new Map(),
    unreadable: [...unreadable],
    notes: [],
    abandoned: new Map(),
    quitting: 'no',
    fatal: null,
    logProblem: null,
    screen,
    keysNotTaken: 0,
    eventDates,
    decidedAt: new Map(),
  };
}

/** A field of a summary as a string, or null. */
export function stringField(fields: Fields, key: string): string | null {
  const value = fields[key];
  return typeof value === 'string' ? value : null;
}
