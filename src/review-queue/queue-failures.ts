import type { CallFailure, Group } from './queue-model.js';
import { saidNo } from '../failures/failure-kind.js';

/*
 * What a failed call means to the queue, by its kind (src/failures/): a refusal (sending it
 * again changes nothing), a failure that ends the session (one that stops a run: the key
 * refused, not the service, the proxy), and where an event the service refused to show goes in
 * the summary. Only these decide it; the rest of the queue asks them.
 */

/** An event the service refused to show (said no, other than to the key): where it goes in the summary, and the note. */
export function refusedLoad(failure: CallFailure): { group: Group; detail?: string; text: string } {
  const codes = failure.codes && failure.codes.length > 0 ? failure.codes.join(', ') : undefined;
  const detail = failure.status === null ? codes : `${failure.status}${codes ? ` ${codes}` : ''}`;
  if (failure.kind === 'not-found') return { group: 'notFound', text: 'not found' };
  // As `show` has it: the id names no event at all (the service's 422 eventId:INVALID_FORMAT).
  if (failure.kind === 'invalid')
    return { group: 'invalidId', ...(detail ? { detail } : {}), text: `invalid id${detail ? ` (${detail})` : ''}` };
  return { group: 'refused', ...(detail ? { detail } : {}), text: failure.message };
}

/** The service said no to this event (the key, not found, invalid, refused): asking again gets the same answer. A 408 or 429 is not one. */
export function isRefusal(failure: CallFailure): boolean {
  return saidNo(failure.kind);
}

/** Every other call would meet it too (the key refused, not the service, the proxy): the session ends. */
export function endsSession(failure: CallFailure): boolean {
  return failure.stopsRun;
}

/** A failed call's outcome in the log: refused, or failed (sent again, it may go through). */
export function failedOutcome(failure: CallFailure): 'refused' | 'failed' {
  return isRefusal(failure) ? 'refused' : 'failed';
}
