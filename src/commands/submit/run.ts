import { MAX_BODY_BYTES } from '../../contract/limits.js';
import { stateIn } from '../../contract/states.js';
import { CliError, ExitCode, UsageError } from '../../errors/cli-error.js';
import { parseEvent } from '../../events/event-input.js';
import { terminalSafe } from '../../render/terminal-text.js';
import { outputOf } from '../room-deps.js';
import type { EventClient, SubmitDeps } from './deps.js';
import type { SubmitOptions } from './options.js';
import { renderDecision, type Decision } from './render.js';

/*
 * `submit`: the input opened and told apart (src/submit-batch/input-records/open-input.ts), then
 * either one event (one POST, its decision shown) or a batch on the pool (src/submit-batch/).
 * A --rejects that would destroy a file is refused before the input is even opened.
 */

export async function run(options: SubmitOptions, deps: SubmitDeps): Promise<void> {
  const { source } = options;
  const { openInput } = await import('../../submit-batch/input-records/open-input.js');
  if (options.rejects !== null) {
    // Before the input is opened: a --rejects that would destroy a file is refused first.
    const { checkRejectsPath } = await import('../../submit-batch/rejects-file.js');
    checkRejectsPath(options.rejects, {
      input: source,
      out: options.out,
      resume: options.resume,
      stdin: deps.streams.stdin,
    });
  }
  const input = await openInput(source, deps.streams, {
    batch: options.batch,
    maxRecordBytes: MAX_BODY_BYTES,
    resumable: options.out !== null,
  });
  if (input.kind === 'batch') {
    // The batch machinery (progress bar, results files, pacing) loads only for a batch.
    const { runBatch } = await import('../../submit-batch/run-submit-batch.js');
    const { batch: _asked, noColor: _noColor, ...batchOptions } = options;
    return runBatch(deps, input, batchOptions);
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
  const client = await deps.client({ signal: abort.signal });
  const interrupted = deps.streams.waitForShutdown().then(() => {
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
  const submitted = submitOne(client, payload, input.text).then((decision) =>
    renderDecision(decision, outputOf(deps, options)),
  );
  // Once interrupted, the aborted request's own failure is of no interest.
  submitted.catch(() => {});
  interrupted.catch(() => {});
  await Promise.race([submitted, interrupted]);
}

/**
 * POSTs one event. A 200 (not 201) means the service had the event already (an identical
 * re-post): its answer is the decision from when the event was first screened, and the state in
 * it may have moved since (a colleague approved it), so the state now is read (one GET).
 */
async function submitOne(client: EventClient, payload: Record<string, unknown>, text: string): Promise<Decision> {
  // The input's text as it is (JSON.parse took it): made again by JSON.stringify, an event nested
  // thousands of levels deep overflowed the stack, and the text is what the user gave anyway.
  const { status, body } = await client.submitEventText(text, typeof payload.id === 'string' ? payload.id : undefined);
  const fields =
    typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : null;
  const id = typeof fields?.id === 'string' ? fields.id : null;
  if (status !== 200 || id === null) return { body, existed: null };
  return { body, existed: { id, stateNow: stateIn((await client.getEvent(id)).body) } };
}
