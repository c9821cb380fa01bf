import { ACTION_TYPES, type ActionType } from '../../contract/decision.js';
import { isCurrencyCode } from '../../contract/currency.js';
import { UsageError } from '../../errors/cli-error.js';
import { readResults } from '../../results-file/read-results.js';
import { parseResult } from '../../results-file/submit-result.js';
import { readIdList } from '../../id-lists/id-list.js';
import { terminalSafe, truncate } from '../../render/terminal-text.js';
import type { CliContext } from '../../process/cli-context.js';
import { openInput } from './input-files.js';

/*
 * The screened events, from submit's results files (and ids of --from): a line that holds all
 * evaluation needs (decision, score, rules matched, amount in the base currency, date) is an
 * event at once, streamed to the figures; any other (an older file, a bare id) is kept to be read
 * from the service. The contract's POST answer has no base amount, so a line records the amount
 * and currency sent: in the base currency that amount is the base amount (BaseCurrency below;
 * today's submit writes it on the line, with the base currency), and only events in another
 * currency are read. Each event is counted once, whichever files name it. A line that is not a
 * submit result makes the whole input wrong: one line naming it, before any figure.
 */

/** What a results line tells of an event; null for what must be read. */
export interface KnownFacts {
  id: string;
  where: string;
  actionType: ActionType | null;
  score: number | null;
  ruleIds: string[] | null;
  amount: number | null;
  date: number | null;
}

export type CompleteFacts = { [K in keyof KnownFacts]: NonNullable<KnownFacts[K]> };

export const isComplete = (f: KnownFacts): f is CompleteFacts =>
  f.actionType !== null && f.score !== null && f.ruleIds !== null && f.amount !== null && f.date !== null;

export interface ResultsCounts {
  /** Result lines read. */
  lines: number;
  /** Lines without a decision (REJECTED, FAILED, UNKNOWN): nothing to evaluate. */
  notDecided: number;
  /** Events named again (another file, a resubmission): counted once. */
  repeated: number;
  /** A last line cut off by a run that died: dropped, as --resume drops it. */
  cutOff: number;
}

const actionOf = (value: unknown): ActionType | null =>
  (ACTION_TYPES as readonly unknown[]).includes(value) ? (value as ActionType) : null;
const dateOf = (value: unknown): number | null => {
  const ms = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  return Number.isNaN(ms) ? null : ms;
};

/**
 * Where the base currency came from: --base-currency, a results line (`where`: file:line) that
 * records it (a batch of today's submit learned it), or one event's summary (its baseCurrency).
 */
export type BaseCurrencySource =
  | { code: string; from: 'option' }
  | { code: string; from: 'results'; where: string }
  | { code: string; from: 'event'; id: string };

/** Reads done to learn the base currency before giving up (each a GET of one event that failed). */
const LEARN_ATTEMPTS = 3;

/**
 * The service's base currency, given (--base-currency), recorded by a results line, or learned
 * once: the summary of the first event that needs it says it (one GET for the whole run, not one
 * per event). When that read fails (the event is gone), the next such line tries, a few times;
 * then the lines are read.
 */
export class BaseCurrency {
  private source: BaseCurrencySource | null;
  private attempts = 0;

  constructor(
    given: string | null,
    private readonly learn: (id: string) => Promise<string | null>,
  ) {
    this.source = given === null ? null : { code: given, from: 'option' };
  }

  get known(): BaseCurrencySource | null {
    return this.source;
  }

  /**
   * A results line says it (its `baseCurrency`): taken unless already known, with no request. One
   * that says another currency than the one known would sum amounts of two currencies as one:
   * refused, naming both.
   */
  recorded(code: unknown, where: string): void {
    if (!isCurrencyCode(code)) return;
    if (this.source === null) {
      this.source = { code, from: 'results', where };
      return;
    }
    if (this.source.code === code) return;
    const known =
      this.source.from === 'option'
        ? `--base-currency says ${this.source.code}`
        : this.source.from === 'results'
          ? `${this.source.where} records ${this.source.code}`
          : `event ${terminalSafe(this.source.id)} says ${this.source.code}`;
    throw new UsageError(
      `${where} records the base currency ${code}, but ${known}: its amounts are not in the same currency`,
      this.source.from === 'option'
        ? 'leave out --base-currency: the results files say it'
        : "evaluate one service's results files at a time",
    );
  }

  async of(id: string): Promise<string | null> {
    if (this.source === null && this.attempts < LEARN_ATTEMPTS) {
      this.attempts++;
      const code = await this.learn(id);
      if (code !== null) this.source = { code, from: 'event', id };
    }
    return this.source?.code ?? null;
  }
}

export class EventSources {
  readonly counts: ResultsCounts = { lines: 0, notDecided: 0, repeated: 0, cutOff: 0 };
  /** Events to read from the service, in input order. */
  readonly toRead: KnownFacts[] = [];
  /**
   * `claim(id)` is false for an id already named (read-outcomes.ts keeps the ids once, with
   * the outcomes'); `onComplete` takes each event that needs no reading.
   */
  constructor(
    private readonly claim: (id: string) => boolean,
    private readonly onComplete: (facts: CompleteFacts) => void,
    private readonly base: BaseCurrency = new BaseCurrency(null, async () => null),
  ) {}

  /** Synchronous but for the one read that learns the base currency (a million lines, one microtask each, add up). */
  private take(facts: KnownFacts, sent: { amount: number; currency: string } | null = null): Promise<void> | undefined {
    if (!this.claim(facts.id)) {
      this.counts.repeated++;
      return undefined;
    }
    if (facts.amount === null && sent !== null) {
      // Sent in the base currency: the amount sent is the base amount.
      const inBase = (code: string | null) => {
        if (code === sent.currency) facts.amount = sent.amount;
      };
      const known = this.base.known;
      if (known === null)
        return this.base.of(facts.id).then((code) => {
          inBase(code);
          this.settle(facts);
        });
      inBase(known.code);
    }
    this.settle(facts);
    return undefined;
  }

  private settle(facts: KnownFacts): void {
    if (isComplete(facts)) this.onComplete(facts);
    else this.toRead.push(facts);
  }

  /** One results file of `submit --out`. */
  async readResultsFile(path: string): Promise<void> {
    await (await openInput(path, 'a results file of fraudctl submit --out')).close();
    for await (const line of readResults(path, { byteOrderMark: 'look-past', header: 'as-found' })) {
      if (line.kind === 'header') {
        if (line.header.command !== 'submit') {
          throw new UsageError(
            `${path} is the results file of fraudctl ${terminalSafe(String(line.header.command))}, not of submit`,
            'evaluate reads submit --out files; give other ids with --from FILE',
          );
        }
        continue;
      }
      // Marked before an event without an id was sent: its result is a line of its own.
      if (line.kind === 'sending') continue;
      const { text, lineNo, ended } = line;
      const where = `${path}:${lineNo}`;
      if (!ended) {
        this.counts.cutOff++;
        continue;
      }
      const result = parseResult(text);
      if (!result) {
        throw new UsageError(
          `${where} is not a result of fraudctl submit: ${terminalSafe(truncate(text, 60))}`,
          'evaluate reads submit --out files; give other ids with --from FILE',
        );
      }
      this.counts.lines++;
      if (result.baseCurrency != null) this.base.recorded(result.baseCurrency, where);
      if (result.outcome !== 'DECIDED' || result.id === null) {
        this.counts.notDecided++;
        continue;
      }
      const learning = this.take(
        {
          id: result.id,
          where,
          actionType: actionOf(result.actionType),
          score: typeof result.totalRiskScore === 'number' ? result.totalRiskScore : null,
          ruleIds: Array.isArray(result.ruleIds)
            ? result.ruleIds.filter((r): r is string => typeof r === 'string')
            : null,
          amount: typeof result.amountInBaseCurrency === 'number' ? result.amountInBaseCurrency : null,
          date: dateOf(result.eventDate),
        },
        typeof result.amount === 'number' && typeof result.currency === 'string'
          ? { amount: result.amount, currency: result.currency }
          : null,
      );
      if (learning) await learning;
    }
  }

  /** Ids of events submitted some other way (one per line, or a results file): all to be read. */
  async readIds(path: string, context: Pick<CliContext, 'stdin'>): Promise<void> {
    if (path !== '-') await (await openInput(path, 'a list of event ids')).close();
    for await (const entry of readIdList({ args: [], from: path, results: 'decided' }, context)) {
      if (entry.id === null) throw new UsageError(`${entry.where}: ${entry.problem ?? 'no id'}`);
      // Nothing sent is known of an id: no base currency to learn, so never a promise.
      void this.take({
        id: entry.id,
        where: entry.where,
        actionType: null,
        score: null,
        ruleIds: null,
        amount: null,
        date: null,
      });
    }
  }
}

/** The facts an event summary and a risk assessment add to what a line knew (tolerant of what they lack). */
export function factsFromService(known: KnownFacts, summary: unknown, assessment: unknown): KnownFacts {
  const s = (typeof summary === 'object' && summary !== null ? summary : {}) as Record<string, unknown>;
  const a = (typeof assessment === 'object' && assessment !== null ? assessment : {}) as Record<string, unknown>;
  const alerts = Array.isArray(a.alerts) ? a.alerts : null;
  return {
    ...known,
    actionType: known.actionType ?? actionOf(a.actionType),
    score:
      known.score ??
      (typeof a.totalRiskScore === 'number'
        ? a.totalRiskScore
        : typeof s.totalScore === 'number'
          ? s.totalScore
          : null),
    ruleIds:
      known.ruleIds ??
      (alerts === null
        ? null
        : alerts.flatMap((x: unknown) => {
            const id = typeof x === 'object' && x !== null ? (x as { ruleId?: unknown }).ruleId : undefined;
            return typeof id === 'string' ? [id] : [];
          })),
    amount: known.amount ?? (typeof s.amountInBaseCurrency === 'number' ? s.amountInBaseCurrency : null),
    date: known.date ?? dateOf(s.eventDate),
  };
}

/** What a read event still lacks, in words (null when complete). */
export function stillMissing(f: KnownFacts): string | null {
  const missing = [
    f.actionType === null ? 'actionType' : null,
    f.score === null ? 'totalRiskScore' : null,
    f.ruleIds === null ? 'the rules matched' : null,
    f.amount === null ? 'amountInBaseCurrency' : null,
    f.date === null ? 'eventDate' : null,
  ].filter((m) => m !== null);
  return missing.length === 0 ? null : `the service gave no ${missing.join(', ')}`;
}
