import type { ApiClient } from '../api/api-client.js';
import type { Session } from '../session.js';
import type { BatchOptions } from '../submit-batch/run-submit-batch.js';
import { parseEvent } from './event-input.js';
import { MAX_BODY_BYTES } from '../contract/limits.js';
import { stateIn } from '../contract/states.js';
import { CliError, ExitCode, UsageError } from '../errors/cli-error.js';
import { terminalSafe } from '../render/terminal-text.js';

/*
 * The work behind submit: one call to the service, then either the service's JSON (--json) or
 * the rendered tables. (show's is its room's: src/commands/show/.)
 */

/** What `submit` is asked (commands/submit.ts maps argv to it): a batch's options, and whether one was asked for. */
export interface SubmitOptions extends Omit<BatchOptions, 'source' | 'json'> {
  /** A batch option was given: the input is a batch whatever it holds (otherwise its content decides). */
  batch: boolean;
}

/** One event: its decision as tables (or JSON). Many: a batch (src/submit-batch). */
export async function submitEvents(session: Session, source: string, options: SubmitOptions): Promise<void> {
  const { openInput } = await import('../submit-batch/input-records/open-input.js');
  if (options.rejects !== null) {
    // Before the input is opened: a --rejects that would destroy a file is refused first.
    const { checkRejectsPath } = await import('../submit-batch/rejects-file.js');
    checkRejectsPath(options.rejects, {
      input: source,
      out: options.out,
      resume: options.resume,
      stdin: session.context.stdin,
    });
  }
  const input = await openInput(source, session.context, {
    batch: options.batch,
    maxRecordBytes: MAX_BODY_BYTES,
    resumable: options.out !== null,
  });
  if (input.kind === 'batch') {
    // The batch machinery (progress bar, results files, pacing) loads only for a batch.
    const { runBatch } = await import('../submit-batch/run-submit-batch.js');
    const { batch: _asked, ...batchOptions } = options;
    return runBatch(session, input, { ...batchOptions, source, json: session.json });
  }
  const name = source === '-' ? 'stdin' : source;
  const payload = parseEvent(input.text, name);
  // Over the service's body limit the event can never be accepted: said here, nothing sent.
  const bytes = Buffer.byteLength(input.text);
  if (bytes > MAX_BODY_BYTES) {
    throw new UsageError(
      `${terminalSafe(name)} holds an event of ${bytes.toLocaleString('en-US')} bytes as sent; the service accepts at most ${MAX_BODY_BYTES.toLocaleString('en-US')} (1 MiB) per event, so it cannot be sent`,
      'make the event smaller (long free text, many items) and submit it again',
    );
  }
  // Ctrl-C while the event is on its way: stop at once, and say what is known (nothing: the
  // service may or may not have stored it) and how to find out.
  const abort = new AbortController();
  const client = await session.client({ signal: abort.signal });
  const interrupted = session.context.waitForShutdown().then(() => {
    abort.abort();
    const id = typeof payload.id === 'string' && payload.id !== '' ? payload.id : null;
    throw new CliError(
      'interrupted: the event was sent, or about to be, and may or may not have been stored',
      ExitCode.INTERRUPTED,
      id !== null
        ? `check with: fraudctl show ${terminalSafe(id)}`
        : 'it has no id to check with (the service assigns one): look for it in the service by its details, and give events an id of your own to make this checkable',
    );
  });
  const submitted = submitAndShow(session, client, payload, input.text);
  // Once interrupted, the aborted request's own failure is of no interest.
  submitted.catch(() => {});
  interrupted.catch(() => {});
  await Promise.race([submitted, interrupted]);
}

/**
 * POST one event and show its decision. A 200 (not 201) means the service had the event already
 * (an identical re-post): its answer is the decision from when the event was first screened, and
 * the state in it may have moved since (a colleague approved it). That is said, and the state now
 * is read (one GET) and shown in its place; --json keeps the service's body and adds
 * `alreadyExisted: true` and `stateNow`.
 */
async function submitAndShow(
  session: Session,
  client: ApiClient,
  payload: Record<string, unknown>,
  text: string,
): Promise<void> {
  // The input's text as it is (JSON.parse took it): made again by JSON.stringify, an event nested
  // thousands of levels deep overflowed the stack, and the text is what the user gave anyway.
  const { status, body } = await client.submitEventText(text, typeof payload.id === 'string' ? payload.id : undefined);
  const fields =
    typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : null;
  const id = typeof fields?.id === 'string' ? fields.id : null;
  let stateNow: string | null = null;
  if (status === 200 && id !== null) {
    stateNow = stateIn((await client.getEvent(id)).body);
  }
  const output = await session.output();
  const existed = status === 200 && id !== null;
  if (output.json) return output.printJson(existed ? { ...fields, alreadyExisted: true, stateNow } : body);
  if (existed)
    output.note(
      `event ${terminalSafe(id)} already existed: the service answered 200 with its first decision; its state now is ${stateNow === null ? 'unknown' : terminalSafe(stateNow)}`,
    );
  const tables = await import('../render/event-tables.js');
  output.print(
    tables.renderDecision(existed && stateNow !== null ? { ...fields, state: stateNow } : body, output.style),
  );
}
