import { describe, expect, it } from 'vitest';
import { BatchStats } from '../../src/submit-batch/batch-stats.js';
import { summaryJson, summaryText, type SummaryFacts } from '../../src/submit-batch/batch-summary.js';
import type { LineResult } from '../../src/results-file/submit-result.js';

/*
 * The batch's closing account: counts of events (not the input's lines), a rate only over a
 * time long enough to mean one, and each event without a decision named where it starts.
 */

/** Stats whose clock says `ms` have passed: the summary's wording, not the machine's speed, is under test. */
class StatsAt extends BatchStats {
  constructor(private readonly ms: number) {
    super();
  }
  override elapsedMs(): number {
    return this.ms;
  }
}

const result = (line: number, column: number, outcome: LineResult['outcome'] = 'DECIDED'): LineResult => ({
  line,
  column,
  id: null,
  idAssigned: false,
  alreadyExisted: false,
  stateNow: null,
  outcome,
  status: outcome === 'DECIDED' ? 201 : null,
  actionType: outcome === 'DECIDED' ? 'APPROVE' : null,
  totalRiskScore: null,
  errorType: outcome === 'DECIDED' ? null : 'INVALID_LINE',
  errorCodes: [],
  attempts: 0,
  latencyMs: 0,
});
const facts = (stats: BatchStats): SummaryFacts => ({
  stats,
  stopped: null,
  results: null,
  rejects: null,
  retries: 0,
  throttled: 0,
  resumed: false,
  serviceFlags: [],
});
const firstLine = (stats: BatchStats) => summaryText(facts(stats)).split('\n')[0];

describe('batch summary', () => {
  it('counts events, and gives a rate only from 0.1 s on', () => {
    const quick = new StatsAt(9);
    quick.add(result(1, 1), undefined);
    quick.add(result(2, 1), undefined);
    expect(firstLine(quick)).toBe('Batch done: 2 events in less than 0.1 s');
    expect(summaryJson(facts(quick)).eventsPerSecond).toBeNull();

    const timed = new StatsAt(2_000);
    for (let line = 1; line <= 20_000; line++) timed.add(result(line * 36, 1), undefined);
    expect(firstLine(timed)).toBe('Batch done: 20,000 events in 2.0 s (10,000 events/s)');
    expect(summaryJson(facts(timed)).eventsPerSecond).toBe(10_000);

    const one = new StatsAt(100);
    one.add(result(1, 1), undefined);
    expect(firstLine(one)).toBe('Batch done: 1 event in 0.1 s (10 events/s)');
  });

  it('gives the command that sends the rejects again only when it cannot store an event twice and the whole input was read', () => {
    const withRejects = (stats: BatchStats, stopped: SummaryFacts['stopped'] = null): string =>
      summaryText({ ...facts(stats), stopped, rejects: 'rejects file.jsonl', serviceFlags: ['--profile', 'prod'] });
    const rejected = new StatsAt(5);
    rejected.add(result(1, 1), undefined);
    rejected.add(result(2, 1, 'REJECTED'), 'not JSON');
    expect(withRejects(rejected)).toContain(
      "\n             to send them again: fraudctl submit 'rejects file.jsonl' --profile prod\n",
    );
    // Stopped early: the rest of the input is in neither file, so the rejects are not all that is left.
    expect(withRejects(rejected, 'max-errors')).not.toContain('fraudctl submit');
    // An unknown outcome may have been stored: sending it again blindly could store it twice.
    const unknown = new StatsAt(5);
    unknown.add(result(1, 1, 'REJECTED'), 'not JSON');
    unknown.add(result(2, 1, 'UNKNOWN'), 'no answer');
    const text = withRejects(unknown);
    expect(text).not.toContain('fraudctl submit');
    expect(text).toContain('1 of them may have been stored (unknown): check those before sending the file again');
  });

  it('names each event without a decision once, by its line and, when several start on it, its column', () => {
    const stats = new StatsAt(5);
    stats.add(result(1, 2, 'REJECTED'), 'not a JSON object (number)');
    stats.add(result(1, 4, 'REJECTED'), 'not a JSON object (number)');
    stats.add(result(3, 1, 'REJECTED'), 'not JSON');
    const problems = summaryText(facts(stats)).split('\n').slice(-4);
    expect(problems).toEqual([
      'Events without a decision:',
      '  line 1 column 2: not a JSON object (number)',
      '  line 1 column 4: not a JSON object (number)',
      '  line 3: not JSON',
    ]);
  });
});
