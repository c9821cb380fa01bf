import pMap from 'p-map';
import { classifyFailure } from '../../failures/failure-kind.js';
import { count } from '../../render/counts.js';
import { loadSandboxConfig, type SandboxConfig } from '../../sandbox/config/sandbox-config.js';
import { normaliseEvent } from '../../sandbox/scoring/normalise-event.js';
import { compileRules, velocityUses, type CompiledRule, type VelocityField } from '../../sandbox/scoring/rules.js';
import { screen } from '../../sandbox/scoring/screen.js';
import type { EventPayload } from '../../contract/event-payload.js';
import type { EvaluateDeps } from './deps.js';
import type { EvaluateOptions } from './options.js';
import type { EvaluatedEvent } from './figures/evaluated-event.js';
import { ShiftTally, type ReplayReport } from './figures/replay.js';
import { FigureTallies } from './report.js';

/*
 * --rules FILE: the evaluated events screened again by the sandbox's own engine under a
 * candidate configuration (the sandbox's format: rules, lists, thresholds, rates). A results line
 * holds no payload, so each event is read (GET /event/{id}: its summary holds every field the
 * payload had, as the service normalised it) and rebuilt as a payload. Events go in date order
 * (input order within a second), a window of them read at once, so a million cost the memory of
 * the window and the velocity counts: velocity is counted over the evaluated events before each,
 * within the rules' longest window: events the files do not hold cannot be counted.
 */

export interface PreparedReplay {
  add(event: EvaluatedEvent): void;
  finish(
    deps: Pick<EvaluateDeps, 'events' | 'stderr'>,
    options: Pick<EvaluateOptions, 'concurrency' | 'thresholds'>,
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
    add: (event) => void events.push(event),
    finish: (deps, options) => replay(file, config, rules, events, deps, options),
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
  const order = events.map((e, i) => i).sort((a, b) => events[a]!.date - events[b]!.date || a - b);
  const shift = new ShiftTally();
  const today = new FigureTallies();
  const candidate = new FigureTallies(config.rules.filter((r) => r.enabled !== false).map((r) => r.id));
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
      shift.add(event, screened.actionType);
      today.add(event);
      candidate.add({
        ...event,
        actionType: screened.actionType,
        score: screened.totalRiskScore,
        ruleIds: screened.alerts.map((a) => a.ruleId),
      });
    });
  }
  const velocityRules = rules
    .filter((r) => JSON.stringify(r.config.when).includes('"velocity"'))
    .map((r) => r.config.id);
  return {
    candidate: file,
    events: shift.events,
    unread,
    changed: shift.changed,
    shift: shift.shift,
    velocityNote:
      velocityRules.length === 0
        ? 'no velocity rule'
        : `velocity (${velocityRules.join(', ')}) counted over the ${count(shift.events)} events replayed, ` +
          'in date order: events the files do not hold cannot be counted',
    today: today.figures(thresholds),
    candidateFigures: candidate.figures(config.thresholds),
  };
}

/**
 * The facts a rule reads, from the event's summary as a payload; null when the candidate cannot
 * score it (a currency it has no rate for).
 */
function factsOf(summary: Record<string, unknown>, event: EvaluatedEvent, config: SandboxConfig) {
  if (
    typeof summary.amount !== 'number' ||
    typeof summary.currency !== 'string' ||
    config.rates[summary.currency] === undefined
  )
    return null;
  const items = Array.isArray(summary.items) ? summary.items : null;
  if (
    items?.some(
      (item: { itemCurrency?: unknown }) =>
        typeof item.itemCurrency === 'string' && config.rates[item.itemCurrency] === undefined,
    )
  )
    return null;
  try {
    return normaliseEvent(summary as unknown as EventPayload, event.id, event.date, config).facts;
  } catch {
    return null;
  }
}
