import pMap from 'p-map';
import { classifyFailure } from '../../failures/failure-kind.js';
import { count } from '../../render/counts.js';
import { loadSandboxConfig, type SandboxConfig } from '../../sandbox/config/sandbox-config.js';
import { normaliseEvent } from '../../sandbox/scoring/normalise-event.js';
import { compileRules, velocityUses, type CompiledRule, type VelocityField } from '../../sandbox/scoring/rules.js';
import { screen, type Screening } from '../../sandbox/scoring/screen.js';
import type { EventPayload } from '../../contract/event-payload.js';
import { UsageError } from '../../errors/cli-error.js';
import { openInput } from '../../submit-batch/input-records/open-input.js';
import type { EvaluateDeps } from './deps.js';
import type { EvaluateOptions } from './options.js';
import type { EvaluatedEvent } from './figures/evaluated-event.js';
import { ShiftTally, type ReplayReport } from './figures/replay.js';
import { FigureTallies } from './report.js';

/*
 * --rules FILE: the evaluated events screened again by the sandbox's own engine under a
 * candidate configuration (the sandbox's format: rules, lists, thresholds, rates). A results line
 * holds no payload: with --events (the files submit read) the payloads are read from them, else
 * each event is read (GET /event/{id}: its summary holds every field the payload had, as the
 * service normalised it). Velocity is counted over the evaluated events before each in date order
 * (input order within a second), within the rules' longest window: events the files do not hold
 * cannot be counted. Read from the service, events go in date order a window at a time; from
 * files, in the files' order, each event's velocity counted from an index of every event's date
 * built by a first pass (two reads of the files, and the memory of two strings an event).
 */

export interface PreparedReplay {
  add(event: EvaluatedEvent): void;
  finish(
    deps: Pick<EvaluateDeps, 'events' | 'stderr' | 'stdin'>,
    options: Pick<EvaluateOptions, 'concurrency' | 'thresholds' | 'events'>,
  ): Promise<ReplayReport>;
}

/** Evaluated events read at once, in date order. */
const WINDOW = 512;

/** The timestamps (s) of the events replayed so far, per velocity field and value, within the longest window. */
class VelocityIndex {
  private readonly byField = new Map<VelocityField, Map<string, number[]>>();

  constructor(private readonly longest: number) {}

  count(field: VelocityField, value: string, ts: number, seconds: number, atMost: number): number {
    const times = this.byField.get(field)?.get(value);
    if (!times) return 0;
    let n = 0;
    for (let i = times.length - 1; i >= 0 && times[i]! >= ts - seconds && n < atMost; i--) if (times[i]! <= ts) n++;
    return n;
  }

  add(field: VelocityField, value: string, ts: number): void {
    let values = this.byField.get(field);
    if (!values) this.byField.set(field, (values = new Map()));
    const times = values.get(value);
    if (!times) return void values.set(value, [ts]);
    times.push(ts);
    // Older than any rule looks back: gone (in date order, the oldest are first).
    let old = 0;
    while (old < times.length && times[old]! < ts - this.longest) old++;
    if (old > 0) times.splice(0, old);
  }
}

export async function prepareReplay(file: string): Promise<PreparedReplay> {
  const { config } = loadSandboxConfig(file, {});
  const rules = compileRules(config.rules);
  const events: EvaluatedEvent[] = [];
  return {
    // Only what a figure reads: a million events' `where` strings are a tenth of the memory.
    add: ({ id, actionType, score, ruleIds, amount, date, fraud }) =>
      void events.push({ id, actionType, score, ruleIds, amount, date, fraud }),
    finish: (deps, options) =>
      options.events.length > 0
        ? replayFromFiles(file, config, rules, events, options.events, deps, options)
        : replay(file, config, rules, events, deps, options),
  };
}

async function replay(
  file: string,
  config: SandboxConfig,
  rules: CompiledRule[],
  events: EvaluatedEvent[],
  deps: Pick<EvaluateDeps, 'events' | 'stderr'>,
  { concurrency, thresholds }: Pick<EvaluateOptions, 'concurrency' | 'thresholds'>,
): Promise<ReplayReport> {
  const uses = velocityUses(rules);
  const fields = [...new Set(uses.map((u) => u.field))];
  const velocity = new VelocityIndex(Math.max(0, ...uses.map((u) => u.seconds)));
  const order = dateOrder(events);
  const tally = new ReplayTally(config);
  let unread = 0;
  const client = events.length > 0 ? await deps.events(concurrency) : null;
  for (let from = 0; from < order.length; from += WINDOW) {
    const window = order.slice(from, from + WINDOW).map((i) => events[i]!);
    const summaries = await pMap(
      window,
      async (event) => {
        try {
          return (await client!.getEvent(event.id)).body as Record<string, unknown>;
        } catch (error) {
          const failure = classifyFailure(error);
          if (failure.stopsRun) throw failure.error;
          return null;
        }
      },
      { concurrency },
    );
    window.forEach((event, i) => {
      const summary = summaries[i];
      const facts = summary ? factsOf(summary, event, config) : null;
      if (!facts) {
        unread++;
        return;
      }
      const ts = Math.floor(event.date / 1000);
      const screened = screen(facts, rules, config, (field, value, seconds, atMost) =>
        velocity.count(field, value, ts, seconds, atMost),
      );
      for (const field of fields) {
        const value = facts[field];
        if (typeof value === 'string') velocity.add(field, value, ts);
      }
      tally.add(event, screened);
    });
  }
  return tally.report({ candidate: file, payloads: 'service', unread }, rules, thresholds);
}

/** Each replayed event as decided today and under the candidate: the shift and both sets of figures. */
class ReplayTally {
  readonly shift = new ShiftTally();
  private readonly today = new FigureTallies();
  private readonly candidate: FigureTallies;

  constructor(private readonly config: SandboxConfig) {
    this.candidate = new FigureTallies(config.rules.filter((r) => r.enabled !== false).map((r) => r.id));
  }

  add(event: EvaluatedEvent, screened: Screening): void {
    this.shift.add(event, screened.actionType);
    this.today.add(event);
    this.candidate.add({
      ...event,
      actionType: screened.actionType,
      score: screened.totalRiskScore,
      ruleIds: screened.alerts.map((a) => a.ruleId),
    });
  }

  report(
    of: Pick<ReplayReport, 'candidate' | 'payloads' | 'unread'>,
    rules: readonly CompiledRule[],
    thresholds: EvaluateOptions['thresholds'],
  ): ReplayReport {
    return {
      candidate: of.candidate,
      payloads: of.payloads,
      events: this.shift.events,
      unread: of.unread,
      changed: this.shift.changed,
      shift: this.shift.shift,
      velocityNote: velocityNote(rules, this.shift.events),
      today: this.today.figures(thresholds),
      candidateFigures: this.candidate.figures(this.config.thresholds),
    };
  }
}

function velocityNote(rules: readonly CompiledRule[], replayed: number): string {
  const velocityRules = rules
    .filter((r) => JSON.stringify(r.config.when).includes('"velocity"'))
    .map((r) => r.config.id);
  return velocityRules.length === 0
    ? 'no velocity rule'
    : `velocity (${velocityRules.join(', ')}) counted over the ${count(replayed)} events replayed, ` +
        'in date order: events the files do not hold cannot be counted';
}

/** The events' indices in date order, input order within the same date: the order velocity counts in. */
const dateOrder = (events: readonly EvaluatedEvent[]): number[] =>
  events.map((_, i) => i).sort((a, b) => events[a]!.date - events[b]!.date || a - b);

/** A payload of an events file, as a plain object with an id; null for anything else. */
function payloadOf(text: string): Record<string, unknown> | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  return typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    typeof (value as { id?: unknown }).id === 'string'
    ? (value as Record<string, unknown>)
    : null;
}

/** Each payload of the --events files, in order; null for a record that is not an event with an id. */
async function* payloads(
  files: readonly string[],
  deps: Pick<EvaluateDeps, 'stdin'>,
): AsyncGenerator<Record<string, unknown> | null> {
  for (const path of files) {
    const input = await openInput(path, deps, { batch: true });
    if (input.kind !== 'batch') throw new UsageError(`${path} holds no events`);
    try {
      for await (const record of input.records) yield record.problem ? null : payloadOf(record.text);
    } finally {
      input.close();
    }
  }
}

/** The first index in `ranks` (ascending) whose event is not before `ts` seconds. */
function firstFrom(ranks: readonly number[], length: number, tsByRank: Float64Array, ts: number): number {
  let lo = 0;
  let hi = length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (tsByRank[ranks[mid]!]! < ts) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The position of `rank` in `ranks` (ascending; it is there). */
function positionOf(ranks: readonly number[], length: number, rank: number): number {
  let lo = 0;
  let hi = length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ranks[mid]! < rank) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

async function replayFromFiles(
  file: string,
  config: SandboxConfig,
  rules: CompiledRule[],
  events: EvaluatedEvent[],
  files: readonly string[],
  deps: Pick<EvaluateDeps, 'stdin'>,
  { thresholds }: Pick<EvaluateOptions, 'thresholds'>,
): Promise<ReplayReport> {
  const fields = [...new Set(velocityUses(rules).map((u) => u.field))];
  const indexOf = new Map<string, number>();
  events.forEach((e, i) => indexOf.set(e.id, i));
  // Each event's place in date order (input order within a second), and its time by place.
  const order = dateOrder(events);
  const rankOf = new Int32Array(events.length);
  const tsByRank = new Float64Array(events.length);
  order.forEach((i, rank) => {
    rankOf[i] = rank;
    tsByRank[rank] = Math.floor(events[i]!.date / 1000);
  });

  // First pass: which events the files hold (the first payload of an id), and by velocity field
  // and value the places of the events that share it. A velocity field's fact is the payload's
  // own value (normalise-event.ts), so it is read there, without building the facts (a third of
  // a replay's time).
  const found = new Uint8Array(events.length);
  const byValue = fields.map(() => new Map<string, number[]>());
  for await (const payload of payloads(files, deps)) {
    const i = payload === null ? undefined : indexOf.get(payload.id as string);
    if (i === undefined || found[i] || !scorable(payload!, config)) continue;
    found[i] = 1;
    fields.forEach((field, f) => {
      const value = payload![field];
      if (typeof value !== 'string') return;
      const ranks = byValue[f]!.get(value);
      if (ranks) ranks.push(rankOf[i]!);
      else byValue[f]!.set(value, [rankOf[i]!]);
    });
  }
  for (const values of byValue) for (const ranks of values.values()) ranks.sort((a, b) => a - b);

  const tally = new ReplayTally(config);
  const done = new Uint8Array(events.length);
  for await (const payload of payloads(files, deps)) {
    const i = payload === null ? undefined : indexOf.get(payload.id as string);
    if (i === undefined || !found[i] || done[i]) continue;
    const facts = factsOf(payload!, events[i]!, config);
    if (!facts) continue;
    done[i] = 1;
    const event = events[i]!;
    const rank = rankOf[i]!;
    const ts = tsByRank[rank]!;
    // The events sharing the value before this one in date order, within the window: as many as
    // a replay in date order would have counted.
    const screened = screen(facts, rules, config, (field, value, seconds, atMost) => {
      const ranks = byValue[fields.indexOf(field)]?.get(value);
      if (!ranks) return 0;
      const before = positionOf(ranks, ranks.length, rank);
      return Math.min(atMost, before - firstFrom(ranks, before, tsByRank, ts - seconds));
    });
    tally.add(event, screened);
  }
  return tally.report(
    { candidate: file, payloads: 'files', unread: events.length - tally.shift.events },
    rules,
    thresholds,
  );
}

/** A payload the candidate can convert and date (what normaliseEvent would otherwise fail on). */
function scorable(payload: Record<string, unknown>, config: SandboxConfig): boolean {
  if (
    typeof payload.amount !== 'number' ||
    typeof payload.currency !== 'string' ||
    config.rates[payload.currency] === undefined ||
    (typeof payload.eventDate === 'string' && Number.isNaN(Date.parse(payload.eventDate)))
  )
    return false;
  const items = Array.isArray(payload.items) ? payload.items : null;
  return !items?.some(
    (item: { itemCurrency?: unknown }) =>
      typeof item.itemCurrency === 'string' && config.rates[item.itemCurrency] === undefined,
  );
}

/**
 * The facts a rule reads, from the event's summary as a payload; null when the candidate cannot
 * score it (a currency it has no rate for).
 */
function factsOf(summary: Record<string, unknown>, event: Pick<EvaluatedEvent, 'id' | 'date'>, config: SandboxConfig) {
  if (!scorable(summary, config)) return null;
  try {
    return normaliseEvent(summary as unknown as EventPayload, event.id, event.date, config).facts;
  } catch {
    return null;
  }
}
