import type { CallFailure, Group } from './queue-model.js';
import { answerKind, saidNo } from '../failures/failure-kind.js';

/*
 * What a failed call means to the queue: a refusal (by its kind, src/failures/: sending it again
 * changes nothing), a refusal of the key (the session ends), and where an event the service
 * refused to show goes in the summary. Only these decide it; the rest of the queue asks them.
 */

/** An event the service refused to show (a 4xx other than the key's): where it goes in the summary, and the note. */
export function refusedLoad(failure: CallFailure): { group: Group; detail?: string; text: string } {
  const detail = `${failure.status}${failure.codes && failure.codes.length > 0 ? ` ${failure.codes.join(', ')}` : ''}`;
  if (failure.status === 404) return { group: 'notFound', text: 'not found' };
  // As `show` has it: the id names no event at all (the service's 422 eventId:INVALID_FORMAT).
  if (failure.status === 400 || failure.status === 422) return { group: 'invalidId', detail, text: `invalid id (${detail})` };
  return { group: 'refused', detail, text: failure.message };
}

/** The service said no to this event (src/failures/: the key, not found, invalid, refused): asking again gets the same answer. A 408 or 429 is not one. */
export function isRefusal(failure: CallFailure): boolean {
  return failure.status !== null && saidNo(answerKind(failure.status, false));
}

export function isAuthFailure(failure: CallFailure): boolean {
  return failure.status !== null && answerKind(failure.status, false) === 'auth';
}

/** A failed call's outcome in the log: refused, or failed (sent again, it may go through). */
export function failedOutcome(failure: CallFailure): 'refused' | 'failed' {
  return isRefusal(failure) ? 'refused' : 'failed';
}
