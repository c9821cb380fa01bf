import type { ApiClient, ApiResponse } from '../api/api-client.js';
import { ApiError, BadResponseError } from '../api/api-error.js';
import { classifyFailure } from '../failures/failure-kind.js';
import type { Style } from '../render/colours.js';
import { isFields, type Fields } from '../render/json-fields.js';
import type { CallFailure, Effect, LogEntry, Msg } from './queue-model.js';
import type { SessionLog } from '../action-log/action-log.js';
import { sendingEntry } from '../action-log/log-entries.js';
import { FileWriteError } from '../files/append-line.js';
import { fileWriteFailure } from '../files/file-errors.js';

/*
 * The effects the queue asks for, run against the service and the log; each ends in the message
 * that reports it. A failure of the service or the network is a message, never a throw: only a
 * bug throws, and the loop then restores the terminal and lets it travel up. A claim or a
 * change is logged before it is sent, and not sent when the log cannot take its line
 * (src/action-log/): the message is then `logFailed`, naming what was not sent.
 */

/** The calls of the service's client the queue makes: an event, its risk assessment, a change of state. */
export type QueueClient = Pick<ApiClient, 'getEvent' | 'getRiskAssessment' | 'changeState'>;

export interface EffectServices {
  client: QueueClient;
  log: SessionLog | null;
  style: Style;
  /** The time now (ms since the epoch): when a change was made, for the summary's overdue count. */
  now(): number;
}

/** A failed call as the queue keeps it: its kind and what follows, decided by src/failures/. */
export function failureOf(error: unknown): CallFailure {
  const { kind, stopsRun, exitCode, error: said } = classifyFailure(error);
  const failure: CallFailure = { kind, stopsRun, exitCode, status: null, message: said.message, requestId: null };
  if (said.hint !== undefined) failure.hint = said.hint;
  // The status as it came, for the log and the summary: what it means is the kind's.
  if (error instanceof ApiError)
    return { ...failure, status: error.status, requestId: error.requestId, codes: error.errorCodes };
  return failure;
}

/** A 2xx to a read without the event summary promised: a bad answer for this id (as `show` has it). */
function withoutSummary(requestId: string | null): CallFailure {
  const bad = new BadResponseError('the service answered without an event summary');
  bad.operation = { method: 'GET', eventId: null };
  return { ...failureOf(bad), requestId };
}

function fieldsOf(response: ApiResponse): Fields | null {
  return isFields(response.body) ? response.body : null;
}

async function load(client: QueueClient, index: number, id: string): Promise<Msg> {
  // Both at once; the summary decides whether the event can be shown at all.
  const [summary, assessment] = await Promise.allSettled([client.getEvent(id), client.getRiskAssessment(id)]);
  if (summary.status === 'rejected') return { type: 'loadFailed', index, failure: failureOf(summary.reason) };
  const fields = fieldsOf(summary.value);
  if (!fields) return { type: 'loadFailed', index, failure: withoutSummary(summary.value.requestId) };
  if (assessment.status === 'rejected')
    return {
      type: 'loaded',
      index,
      summary: fields,
      assessment: null,
      assessmentProblem: failureOf(assessment.reason).message,
    };
  return { type: 'loaded', index, summary: fields, assessment: assessment.value.body, assessmentProblem: null };
}

/**
 * Claiming reads the state first: the service accepts IN_REVIEW → IN_REVIEW (setting a state an
 * event has is allowed), so a PATCH alone cannot tell a claim from taking a colleague's. What the
 * read leaves open is the moment between it and the PATCH (docs/review.md: no compare-and-set).
 */
async function claim(client: QueueClient, log: SessionLog | null, id: string): Promise<Msg> {
  try {
    const fresh = fieldsOf(await client.getEvent(id));
    if (fresh && fresh.state !== 'PENDING_REVIEW') return { type: 'claimLost', id, summary: fresh };
    const unlogged = await logFirst(
      log,
      sendingEntry({ eventId: id, action: 'claim', from: 'PENDING_REVIEW', to: 'IN_REVIEW' }),
    );
    if (unlogged) return { ...unlogged, notSent: { id, what: 'claim' } };
    const response = await client.changeState(id, { state: 'IN_REVIEW' });
    return { type: 'claimed', id, summary: fieldsOf(response), requestId: response.requestId };
  } catch (error) {
    return { type: 'claimFailed', id, failure: failureOf(error) };
  }
}

/** Why a line could not be written to the log, as the message that says so: the words of every file's writer. */
function logFailed(log: SessionLog, error: unknown): Extract<Msg, { type: 'logFailed' }> {
  const failure =
    error instanceof FileWriteError ? error : fileWriteFailure(log.path, error, 'log', { option: '--log' });
  return { type: 'logFailed', message: failure.message, ...(failure.hint !== undefined ? { hint: failure.hint } : {}) };
}

/** Writes the line of a change about to be sent; a failure, as a message, when it cannot (the change is then not sent). */
async function logFirst(log: SessionLog | null, entry: LogEntry): Promise<Extract<Msg, { type: 'logFailed' }> | null> {
  if (!log) return null;
  try {
    await log.append(entry);
    return null;
  } catch (error) {
    return logFailed(log, error);
  }
}

export async function runEffect(effect: Effect, services: EffectServices): Promise<Msg | null> {
  const { client } = services;
  switch (effect.type) {
    case 'load':
      return load(client, effect.index, effect.id);
    case 'claim':
      return claim(client, services.log, effect.id);
    case 'release':
      try {
        const response = await client.changeState(effect.id, { state: 'PENDING_REVIEW' });
        return { type: 'released', id: effect.id, action: effect.action, requestId: response.requestId };
      } catch (error) {
        return { type: 'releaseFailed', id: effect.id, action: effect.action, failure: failureOf(error) };
      }
    case 'reread':
      try {
        const response = await client.getEvent(effect.id);
        const fields = fieldsOf(response);
        if (!fields) return { type: 'rereadFailed', id: effect.id, failure: withoutSummary(response.requestId) };
        return { type: 'reread', id: effect.id, summary: fields };
      } catch (error) {
        return { type: 'rereadFailed', id: effect.id, failure: failureOf(error) };
      }
    case 'patch': {
      const unlogged = await logFirst(services.log, effect.logged);
      if (unlogged) return { ...unlogged, notSent: { id: effect.id, what: 'patch' } };
      try {
        const response = await client.changeState(effect.id, effect.change);
        return {
          type: 'patched',
          id: effect.id,
          summary: fieldsOf(response),
          requestId: response.requestId,
          at: services.now(),
        };
      } catch (error) {
        return { type: 'patchFailed', id: effect.id, failure: failureOf(error) };
      }
    }
    case 'log':
      return logFirst(services.log, effect.entry);
    case 'renderView': {
      const { renderEventSummary, renderRiskAssessment } = await import('../render/event-tables.js');
      const text = `${renderEventSummary(effect.summary, services.style)}\n\n${renderRiskAssessment(effect.assessment, services.style)}`;
      return { type: 'viewReady', id: effect.id, lines: text.split('\n') };
    }
  }
}
