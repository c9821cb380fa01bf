import { commentTooLong, MAX_COMMENT_LENGTH } from '../contract/limits.js';
import { KNOWN_STATES, TRANSITIONS, isKnownState } from '../contract/states.js';
import { CliError, ExitCode, UsageError } from '../errors/cli-error.js';
import { callFailure } from '../failures/failure-kind.js';
import type { ApiClient, RequestPreview } from '../api/api-client.js';
import type { Settings } from '../profiles/settings.js';
import type { Prompter } from '../prompter/prompter.js';
import { matchState, stateFromTyped } from './state-names.js';
import { terminalSafe } from '../render/terminal-text.js';
import { shellCommand } from '../render/shell-command.js';
import { changedSince, changeWords, commentToSend, replacesComment, seenIn, type Seen } from './change-rules.js';
import { sym } from '../render/symbols.js';
import { checkedReason, withReason, type ReasonRules } from './reasons.js';
import type { ChangeLog } from '../action-log/logged-change.js';

/*
 * Manual review: change an event's state and/or add a comment. What is missing is asked at a
 * terminal (state from a list, comments as text, then a confirmation showing before → after);
 * without a terminal, or with --no-input, missing input is a usage error naming the flag.
 *
 * What is sent is what the person saw: the event is read first and read again just before the
 * PATCH (change-rules.ts compares the two and words the difference). A comment that would
 * replace the event's own (the service keeps one) is kept, with the new one after it, or
 * replaced, as asked (a terminal) or said (--append-comment / --replace-comment); off a
 * terminal, without either, nothing is sent. --dry-run reads the same and shows the request,
 * then the refusal the real run would meet (a transition the known rules do not allow: exit 5).
 * In named parts: the flags (askedByFlags), the terminal's questions (completedOnTerminal), the
 * dry run's request (dryRunOf), the confirmation and re-read (confirmedAndReread). What it comes to
 * (the change sent and the answer, or the request a dry run would send) is returned: the command's
 * room (src/commands/set-state/) prints it. It takes narrow deps (OneChangeDeps), never a Session.
 */

/** What one-event `set-state` is asked (src/commands/set-state/ maps argv to it; --append-comment and --replace-comment are not both set). */
export interface OneChangeOptions {
  /** --state as typed (matched to a known state here), or null: asked on a terminal. */
  state: string | null;
  /** --comments as given, or null: asked on a terminal. */
  comments: string | null;
  dryRun: boolean;
  yes: boolean;
  /** Send --state as typed, even when this build does not know it. */
  forceState: boolean;
  /** Print the updated summary's tables instead of one line. */
  verbose: boolean;
  /** --comments on an event that has a comment: keep it, the new one after it. */
  appendComment: boolean;
  /** --comments on an event that has a comment: replace it. */
  replaceComment: boolean;
  /** --log FILE: the change logged before it is sent, and its outcome after (src/action-log/); null: none. */
  log: string | null;
  /** --reason CODE: one of the profile's codes (reasons.ts), at the head of the comment and in the log; null: none. */
  reason: string | null;
  /** --include-claimed: change an event IN_REVIEW (claimed in a review session) without asking. */
  includeClaimed: boolean;
}

/** The settings one event's change reads: the reason codes, and what a dry run's request shows. */
export type ChangeSettings = Pick<
  Settings,
  'profile' | 'reasons' | 'requireReason' | 'baseUrl' | 'apiKey' | 'apiKeySource'
>;

/** All that one event's change takes from outside; the room's deps.ts builds the real ones. */
export interface OneChangeDeps {
  /** Notes, and what changed while the person was asked: stderr. */
  stderr: { write(text: string): void };
  /** A terminal on both ends, and no --no-input: what is missing is asked, and the change confirmed. */
  canPrompt: boolean;
  prompter(): Promise<Prompter>;
  settings(): Promise<ChangeSettings>;
  /** The service's client, made at the first read (a key read, the embedded sandbox started). */
  client(): Promise<Pick<ApiClient, 'getEvent' | 'changeState'>>;
  /** The global flags a hint's command repeats (the service's, --timeout, --json, --no-input), as typed. */
  hintFlags: readonly string[];
  /** The flags that chose the service, for a hint to `show` the same event. */
  serviceFlags: readonly string[];
  /** Opens the --log file (action-log/logged-change.ts) before anything is read. */
  openLog(path: string): Promise<ChangeLog>;
  now(): number;
}

/** What one event's change came to: the change sent and the service's answer, or the request a dry run showed. */
export type OneChangeOutcome =
  | {
      kind: 'sent';
      eventId: string;
      /** The state asked for; undefined: only a comment. */
      state: string | undefined;
      /** The state read just before the PATCH. */
      before: string | null;
      /** The service's body (undefined after a 204). */
      body: unknown;
      comment: Comment | undefined;
    }
  | {
      kind: 'dry-run';
      request: RequestPreview;
      /** What the real run would meet, thrown once the request is shown (a refused transition, the read's failure); null: none. */
      failure: unknown;
    };

const OTHER = Symbol('other');
const KEEP = Symbol('keep');

async function askState(
  prompter: Prompter,
  current: string | null,
  force: boolean,
  say: (line: string) => void,
): Promise<string | undefined> {
  const allowed: readonly string[] = current && isKnownState(current) ? TRANSITIONS[current] : KNOWN_STATES;
  // Only the transitions the current state allows are offered: a state the known rules refuse is
  // not a choice to make by arrow keys (a real service with other rules: "other…" and --force-state).
  const offered = KNOWN_STATES.filter((s) => allowed.includes(s) && s !== current);
  type Choice = string | typeof OTHER | typeof KEEP;
  const choices = [
    ...offered.map((s) => ({ name: s, value: s as Choice })),
    { name: `other${sym.ellipsis}`, value: OTHER as Choice, description: 'a state this list does not offer' },
    ...(current ? [{ name: `keep ${current}, only add a comment`, value: KEEP as Choice }] : []),
  ];
  const question = `New state (from ${current ?? 'no state'})`;
  const picked = await prompter.select<Choice>(question, choices, offered[0] ?? OTHER);
  if (picked === KEEP) return undefined;
  if (picked !== OTHER) return picked;
  for (;;) {
    const typed = (await prompter.input('State', { required: true })).trim();
    const state = matchState(typed).state ?? typed;
    const refused = force ? null : refusedTransition(current, state);
    if (refused === null) return state;
    // Not taken: the same rule as the list; asked again (Ctrl-C leaves).
    say(`${refused}: not taken (--force-state sends it)\n`);
  }
}

/** A comment over the contract's limit is refused before anything is sent (the service would answer 422 comments:TOO_LONG). */
export function refuseLongComment(comments: string): void {
  const problem = commentTooLong(comments);
  if (problem)
    throw new UsageError(
      `${problem}: nothing was sent`,
      `shorten it to ${MAX_COMMENT_LENGTH.toLocaleString('en-US')} characters or fewer`,
    );
}

/** How `--comments` treats a comment the event has: kept with the new one after it, replaced, or not said. */
type CommentChoice = 'append' | 'replace' | null;

/** The command as it was run, with `extra` options added: what a hint that corrects it prints. */
type RunAgain = (extra: readonly string[]) => string;

/**
 * The command as it was run, every option of the change kept (a hint that dropped --reason would
 * fail under require-reason, or send the code as plain text), with `extra` added; safe to print.
 */
function commandAgain(
  deps: OneChangeDeps,
  eventId: string,
  options: OneChangeOptions,
  extra: readonly string[],
): string {
  const given = options.comments;
  const comments = given !== null && given.trim() !== '' ? ['--comments', given] : [];
  const words = [
    'fraudctl',
    ...deps.hintFlags,
    'set-state',
    eventId,
    ...(options.state !== null ? ['--state', options.state] : []),
    ...comments,
    ...(options.reason !== null ? ['--reason', options.reason] : []),
    ...(options.forceState ? ['--force-state'] : []),
    ...(options.includeClaimed ? ['--include-claimed'] : []),
    ...(options.log !== null ? ['--log', options.log] : []),
    ...(options.verbose ? ['--verbose'] : []),
    ...(options.yes ? ['--yes'] : []),
    ...extra,
  ];
  return terminalSafe(shellCommand(words));
}

/**
 * The comment to send, given what the event has now: the same text when it replaces nothing;
 * otherwise as chosen (flag), asked (terminal), or refused (off a terminal, nothing sent).
 */
async function commentFor(
  deps: OneChangeDeps,
  eventId: string,
  comments: string,
  seen: Seen,
  choice: CommentChoice,
  ask: boolean,
  again: RunAgain,
): Promise<{ text: string; kept: string | null; replaced: string | null }> {
  const existing = seen.comments;
  if (existing === null || !replacesComment(existing, comments)) return { text: comments, kept: null, replaced: null };
  let keep: boolean;
  if (choice !== null) keep = choice === 'append';
  else if (ask) {
    keep = await (
      await deps.prompter()
    ).confirm(
      `${terminalSafe(eventId)} has a comment: "${terminalSafe(existing)}". Keep it (yours is added after it; n replaces it)?`,
      true,
    );
  } else {
    throw new UsageError(
      `${terminalSafe(eventId)} has a comment ("${terminalSafe(existing)}"), which --comments would replace: nothing was sent`,
      `keep it and add yours after it: ${again(['--append-comment'])}; or replace it: ${again(['--replace-comment'])}`,
    );
  }
  const text = commentToSend(existing, comments, keep);
  const problem = commentTooLong(text);
  if (problem)
    throw new UsageError(
      `${problem} with the comment it keeps: nothing was sent`,
      `shorten yours, or replace the comment (--replace-comment)`,
    );
  return keep ? { text, kept: existing, replaced: null } : { text, kept: null, replaced: existing };
}

/** What the flags ask before anything is read: the state matched, the comment checked, and how a comment the event has is treated. */
interface Asked {
  state: string | undefined;
  comments: string | undefined;
  choice: CommentChoice;
  /** --reason as typed (checked against the profile once the state is known); after completedOnTerminal, the code, at the head of `comments`. */
  reason: string | undefined;
}

/** The flags checked and made canonical, before anything is read or sent; usage errors for what cannot be asked for. */
function askedByFlags(deps: OneChangeDeps, options: OneChangeOptions): Asked {
  let state = options.state ?? undefined;
  let comments = options.comments ?? undefined;
  const reason = options.reason ?? undefined;
  const choice: CommentChoice = options.appendComment ? 'append' : options.replaceComment ? 'replace' : null;
  // An empty comment is never sent: the service replaces the event's comment with it, which would
  // erase a colleague's note.
  if (comments !== undefined && comments.trim() === '') {
    comments = undefined;
    if (state === undefined && reason === undefined)
      throw new UsageError(
        'nothing to change: the comment is empty and there is no --state',
        'an empty comment is never sent, so that it cannot erase the comment the event has',
      );
    deps.stderr.write('note: the empty --comments is not sent (it would erase the comment the event has)\n');
  }
  if (state !== undefined) state = stateFromTyped(state, options.forceState === true, 'send');
  // Before anything is sent: the service would refuse it (422 comments:TOO_LONG).
  if (comments !== undefined) refuseLongComment(comments);
  const prompting = deps.canPrompt;
  if (!prompting && state === undefined && comments === undefined && reason === undefined) {
    throw new UsageError(
      'set-state needs --state (or --comments) when it cannot prompt',
      `pass e.g. --state APPROVED --comments "checked with the customer"; states: ${KNOWN_STATES.join(', ')}`,
    );
  }
  if (choice !== null && comments === undefined && reason === undefined && !prompting)
    throw new UsageError(
      `--${choice}-comment goes with --comments`,
      'e.g. --comments "customer called" --append-comment',
    );
  return { state, comments, choice, reason };
}

/**
 * What is missing, asked on a terminal (the choices follow the state read); the change to make,
 * or a usage error when there is none. The reason is checked against the state now known, and
 * put at the head of the comment (reasons.ts).
 */
async function completedOnTerminal(
  deps: OneChangeDeps,
  asked: Asked,
  seen: Seen,
  rules: ReasonRules,
  force: boolean,
): Promise<Asked> {
  let { state, comments } = asked;
  if (deps.canPrompt) {
    const prompter = await deps.prompter();
    const say = (line: string) => deps.stderr.write(line);
    if (state === undefined) state = await askState(prompter, seen.state, force, say);
    if (comments === undefined) {
      const has =
        seen.comments !== null && seen.comments.trim() !== '' ? `; the event has "${terminalSafe(seen.comments)}"` : '';
      comments = (await prompter.input(`Comments (optional${has})`)).trim() || undefined;
    }
  }
  const reason = checkedReason(rules, asked.reason, state);
  comments = withReason(reason, comments);
  // The whole comment as sent, the reason included, is what the service's limit counts.
  if (comments !== undefined) refuseLongComment(comments);
  if (state === undefined && comments === undefined)
    throw new UsageError(
      'nothing to change: give a state or a comment',
      "an empty comment is never sent, so that it cannot erase the event's comment",
    );
  return { ...asked, state, comments, reason: reason ?? undefined };
}

/** The comment to send and what it does to the one the event has: kept, replaced, or neither. */
export type Comment = Awaited<ReturnType<typeof commentFor>>;

/** The PATCH body: the state and the comment, each only when there is one. */
function changeBody(state: string | undefined, comment: Comment | undefined): { state?: string; comments?: string } {
  return { ...(state !== undefined ? { state } : {}), ...(comment !== undefined ? { comments: comment.text } : {}) };
}

/**
 * Whether the service's known rules refuse the change from the state read (as the sandbox
 * would: INVALID_STATE_TRANSITION, exit 5), in words; null when they allow it or cannot tell (a
 * state this build does not know, no state read, no state asked).
 */
export function refusedTransition(from: string | null, to: string | undefined): string | null {
  if (to === undefined || from === null || to === from || !isKnownState(from) || !isKnownState(to)) return null;
  if ((TRANSITIONS[from] as readonly string[]).includes(to)) return null;
  const allowed = TRANSITIONS[from];
  return `${terminalSafe(from)} ${sym.arrow} ${terminalSafe(to)} is not allowed (from ${terminalSafe(from)}: ${allowed.length > 0 ? allowed.join(', ') : 'none, it is final'})`;
}

/**
 * --dry-run: the request the real run would send, after the same read (the comment it keeps is
 * known); and, when the real run would be refused (a transition the known rules do not allow),
 * the refusal with the exit code the service's answer would give. Nothing is sent.
 */
async function dryRunOf(
  deps: OneChangeDeps,
  eventId: string,
  state: string | undefined,
  comment: Comment | undefined,
  seen: Seen,
): Promise<{ request: RequestPreview; refusal: CliError | null }> {
  const [{ previewRequest, eventPath }, settings] = await Promise.all([
    import('../api/api-client.js'),
    deps.settings(),
  ]);
  // A key in the credential store is shown redacted, as any key in a preview.
  const key = settings.apiKey ?? (settings.apiKeySource === 'credential-store' ? '[redacted]' : null);
  const request = previewRequest(
    settings.baseUrl,
    key,
    'PATCH',
    eventPath(eventId, '/state'),
    changeBody(state, comment),
    settings.profile,
  );
  const refused = refusedTransition(seen.state, state);
  const refusal =
    refused === null
      ? null
      : new CliError(
          `the real run would be refused: ${terminalSafe(eventId)} is ${terminalSafe(seen.state ?? '?')}, and ${refused}`,
          ExitCode.REJECTED,
          "the transitions are the sandbox's (fraudctl set-state --help lists them); a real service may differ",
        );
  return { request, refusal };
}

/**
 * An event IN_REVIEW is held in a review session (the service has no owner; the team's log says
 * who and since when: claim-holders.ts). A change of its state says so: a terminal then asks, the
 * confirmation defaulting to no (confirmedAndReread); off one, or with --yes, nothing is sent
 * (exit 1) unless --include-claimed says to go on.
 */
async function refuseClaimed(
  deps: OneChangeDeps,
  eventId: string,
  seen: Seen,
  state: string | undefined,
  options: OneChangeOptions,
  again: RunAgain,
): Promise<void> {
  if (seen.state !== 'IN_REVIEW' || state === undefined || state === 'IN_REVIEW') return;
  if (options.includeClaimed === true) return;
  const { claimHolders, claimWords } = await import('./claim-holders.js');
  const holder = options.log !== null ? (await claimHolders(options.log)).get(eventId) : undefined;
  const words = `${terminalSafe(eventId)} is IN_REVIEW, ${claimWords(holder, options.log, deps.now())}`;
  if (deps.canPrompt && !options.yes) {
    deps.stderr.write(`${words}\n`);
    return;
  }
  const hint = `to change it all the same: ${again(['--include-claimed'])}`;
  throw new CliError(`CLAIMED: ${words}: nothing was sent`, ExitCode.FAILURE, hint);
}

/**
 * A change a person should not make on Enter alone: the confirmation's default is no. It takes
 * an event from under a review session (IN_REVIEW), overturns a decision (any state but
 * PENDING_REVIEW), confirms fraud (final), or replaces the event's comment.
 */
function risky(seen: Seen, state: string | undefined, comment: Comment | undefined): boolean {
  if (comment?.replaced != null) return true;
  if (state === undefined || state === seen.state) return false;
  return seen.state !== 'PENDING_REVIEW' || state === 'FRAUD_CONFIRMED';
}

/**
 * Asks for the confirmation (on a terminal) and reads the event again just before the PATCH: an
 * event that changed meanwhile (a colleague's decision or note) is said and asked about again;
 * off a terminal (or with --yes) it is a CONFLICT and nothing is sent. Returns what the event is
 * now and the comment to send.
 */
async function confirmedAndReread(
  deps: OneChangeDeps,
  client: Pick<ApiClient, 'getEvent'>,
  eventId: string,
  asked: Asked,
  first: Seen,
  confirming: boolean,
  again: RunAgain,
): Promise<{ seen: Seen; comment: Comment | undefined }> {
  const { state, comments, choice } = asked;
  let seen = first;
  const ask = deps.canPrompt;
  let comment =
    comments === undefined ? undefined : await commentFor(deps, eventId, comments, seen, choice, ask, again);
  let conflicted = false;
  for (;;) {
    if (confirming) {
      const arrow =
        state !== undefined
          ? `${terminalSafe(seen.state ?? '?')} ${sym.arrow} ${terminalSafe(state)}`
          : `keep ${terminalSafe(seen.state ?? '?')}`;
      const note =
        comment === undefined
          ? ''
          : ` with comment "${terminalSafe(comments!)}"${comment.kept !== null ? ` after "${terminalSafe(comment.kept)}"` : comment.replaced !== null ? ` replacing "${terminalSafe(comment.replaced)}"` : ''}`;
      // After a change by someone else, Enter does not overrule them, nor a risky change: the default is no.
      const yes = !conflicted && !risky(seen, state, comment);
      const go = await (await deps.prompter()).confirm(`Change ${terminalSafe(eventId)}: ${arrow}${note}?`, yes);
      if (!go) throw new CliError('cancelled: nothing was changed', ExitCode.INTERRUPTED);
    }
    const now = seenIn((await client.getEvent(eventId)).body);
    if (changedSince(seen, now) === null) return { seen, comment };
    const what = changeWords(seen, now).map(terminalSafe).join('; ');
    if (!confirming) {
      throw new CliError(
        `CONFLICT: ${terminalSafe(eventId)} changed since it was read (${what}): nothing was sent`,
        ExitCode.FAILURE,
        `see it with ${shellCommand(['fraudctl', ...deps.serviceFlags, 'show', eventId])}, then decide again`,
      );
    }
    deps.stderr.write(`${terminalSafe(eventId)} changed since you read it: ${what}\n`);
    seen = now;
    conflicted = true;
    if (comments !== undefined) comment = await commentFor(deps, eventId, comments, seen, choice, true, again);
  }
}

export async function setState(
  eventId: string,
  options: OneChangeOptions,
  deps: OneChangeDeps,
): Promise<OneChangeOutcome> {
  const flags = askedByFlags(deps, options);
  const again: RunAgain = (extra) => commandAgain(deps, eventId, options, extra);
  const settings = await deps.settings();
  const rules: ReasonRules = {
    profile: settings.profile,
    reasons: settings.reasons,
    requireReason: settings.requireReason,
  };
  // A reason that cannot be sent is said before anything is read, when the state will not be asked.
  if (flags.state !== undefined || !deps.canPrompt) checkedReason(rules, flags.reason, flags.state);
  // Opened before the event is read: a log it cannot write is said before anything happens (a dry run sends nothing to log).
  const log = !options.dryRun && options.log !== null ? await deps.openLog(options.log) : null;
  try {
    return await readAskAndSend(deps, eventId, options, flags, rules, log, again);
  } finally {
    // Whatever stopped it before the change (a usage error, a no, a conflict): the file is
    // closed, not left to the collector.
    await log?.close();
  }
}

/** The event read, what is missing asked, then the change sent (logged first with --log). */
async function readAskAndSend(
  deps: OneChangeDeps,
  eventId: string,
  options: OneChangeOptions,
  flags: Asked,
  rules: ReasonRules,
  log: ChangeLog | null,
  again: RunAgain,
): Promise<OneChangeOutcome> {
  const client = await deps.client();
  // What the event was when read: the choices, the comment it has, and what a re-read compares with.
  const read = await client.getEvent(eventId).then(
    (reply) => ({ seen: seenIn(reply.body), refused: undefined }),
    (error: unknown) => {
      // A dry run of an event the service says is not there, or refuses to read (a malformed id),
      // still shows its request, then fails as the real run would.
      const kind = callFailure(error)?.kind;
      const aboutTheEvent = kind === 'not-found' || kind === 'invalid' || kind === 'refused';
      if (!options.dryRun || !aboutTheEvent) throw error;
      return { seen: { state: null, comments: null }, refused: error };
    },
  );
  const { seen } = read;
  const asked = await completedOnTerminal(deps, flags, seen, rules, options.forceState);
  if (!options.dryRun) await refuseClaimed(deps, eventId, seen, asked.state, options, again);
  if (options.dryRun) {
    const { comments, choice } = asked;
    const ask = deps.canPrompt;
    const comment =
      comments === undefined ? undefined : await commentFor(deps, eventId, comments, seen, choice, ask, again);
    const { request, refusal } = await dryRunOf(deps, eventId, asked.state, comment, seen);
    return { kind: 'dry-run', request, failure: refusal ?? read.refused ?? null };
  }
  const confirming = deps.canPrompt && !options.yes;
  const { seen: sent, comment } = await confirmedAndReread(deps, client, eventId, asked, seen, confirming, again);
  const change = changeBody(asked.state, comment);
  const reply = log
    ? await log.send(
        { eventId, from: sent.state, to: asked.state, comments: change.comments, reason: asked.reason ?? null },
        () => client.changeState(eventId, change),
      )
    : await client.changeState(eventId, change);
  return { kind: 'sent', eventId, state: asked.state, before: sent.state, body: reply.body, comment };
}
