import pMap from 'p-map';
import { classifyFailure, type FailureKind } from '../../failures/failure-kind.js';
import { count } from '../../render/counts.js';
import { createStatusLine } from '../../render/status-line.js';
import type { EvaluateDeps, EventReader } from './deps.js';
import { factsFromService, stillMissing, type CompleteFacts, type KnownFacts } from './read-results.js';

/*
 * The events a results line cannot tell enough of (an older file, a bare id): each read from
 * the service, GET /event/{id} for its amount in the base currency and date, the risk assessment
 * for its decision and rules, only what is missing. Several at once (--concurrency), a count on
 * a terminal's stderr. An event that cannot be read is counted by why, never dropped unseen; a
 * failure every other read would meet too (a refused key, not the service) stops at once.
 */

export interface Unread {
  id: string;
  where: string;
  kind: FailureKind | 'incomplete';
  reason: string;
  exitCode: number;
}

export async function readEvents(
  pending: readonly KnownFacts[],
  deps: Pick<EvaluateDeps, 'events' | 'stderr'>,
  concurrency: number,
  onComplete: (facts: CompleteFacts) => void,
): Promise<Unread[]> {
  const unread: Unread[] = [];
  if (pending.length === 0) return unread;
  const client = await deps.events(concurrency);
  let done = 0;
  // The one progress line of a terminal (src/render/status-line.ts); none off a terminal.
  const line = deps.stderr.isTTY ? createStatusLine(deps.stderr) : null;
  const progress = () => line?.show(`reading events ${count(done)}/${count(pending.length)}`);
  try {
    await pMap(
      pending,
      async (known) => {
        const outcome = await readOne(client, known);
        done++;
        progress();
        if ('facts' in outcome) onComplete(outcome.facts);
        else unread.push(outcome.unread);
      },
      { concurrency },
    );
  } finally {
    line?.stop();
  }
  return unread;
}

async function readOne(client: EventReader, known: KnownFacts): Promise<{ facts: CompleteFacts } | { unread: Unread }> {
  const needSummary = known.amount === null || known.date === null || known.score === null;
  const needAssessment = known.actionType === null || known.ruleIds === null;
  let summary: unknown = null;
  let assessment: unknown = null;
  try {
    if (needSummary) summary = (await client.getEvent(known.id)).body;
    if (needAssessment) assessment = (await client.getRiskAssessment(known.id)).body;
  } catch (error) {
    const failure = classifyFailure(error);
    if (failure.stopsRun) throw failure.error;
    return {
      unread: {
        id: known.id,
        where: known.where,
        kind: failure.kind,
        reason: failure.error.message,
        exitCode: failure.exitCode,
      },
    };
  }
  const facts = factsFromService(known, summary, assessment);
  const missing = stillMissing(facts);
  if (missing !== null)
    return { unread: { id: known.id, where: known.where, kind: 'incomplete', reason: missing, exitCode: 1 } };
  return { facts: facts as CompleteFacts };
}
