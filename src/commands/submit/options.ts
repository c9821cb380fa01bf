import type { BatchOptions } from '../../submit-batch/run-submit-batch.js';

/*
 * What `submit` is asked, as one typed value: command.ts makes it from argv (the flag
 * combinations checked there: --resume has --out), run.ts does it. A batch's options are the
 * batch's own (src/submit-batch/run-submit-batch.ts); the input decides between one event and a
 * batch unless a batch option was given.
 */

export interface SubmitOptions extends BatchOptions {
  /** A batch option was given: the input is a batch whatever it holds (otherwise its content decides). */
  batch: boolean;
  noColor: boolean;
}
