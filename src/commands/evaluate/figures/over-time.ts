import { ratio, type EvaluatedEvent } from './evaluated-event.js';

/*
 * Over time: per UTC day, or per ISO week (from Monday), the volume, the decisions and the fraud
 * rate. Periods with no event between the first and the last are listed with zeros, so that a
 * chart's gaps are gaps.
 */

export type Period = 'day' | 'week';

export interface PeriodFigure {
  /** The period's first day, YYYY-MM-DD. */
  start: string;
  events: number;
  APPROVE: number;
  REVIEW: number;
  DECLINE: number;
  fraud: number;
  /** fraud / events; null for a period without events. */
  fraudRate: number | null;
}

const DAY = 86_400_000;

/** The start of the period holding `ms`, in ms. */
export function periodStart(ms: number, by: Period): number {
  const day = Math.floor(ms / DAY) * DAY;
  if (by === 'day') return day;
  // 1970-01-01 was a Thursday: Monday is 3 days before it.
  const weekday = (Math.floor(ms / DAY) + 3) % 7;
  return day - weekday * DAY;
}

export class TimeTally {
  private readonly periods = new Map<number, Omit<PeriodFigure, 'start' | 'fraudRate'>>();

  constructor(private readonly by: Period) {}

  add(event: EvaluatedEvent): void {
    const start = periodStart(event.date, this.by);
    let p = this.periods.get(start);
    if (!p) this.periods.set(start, (p = { events: 0, APPROVE: 0, REVIEW: 0, DECLINE: 0, fraud: 0 }));
    p.events++;
    p[event.actionType]++;
    if (event.fraud) p.fraud++;
  }

  figures(): PeriodFigure[] {
    const starts = [...this.periods.keys()];
    if (starts.length === 0) return [];
    const first = Math.min(...starts);
    const last = Math.max(...starts);
    const step = this.by === 'day' ? DAY : 7 * DAY;
    const out: PeriodFigure[] = [];
    for (let t = first; t <= last; t += step) {
      const p = this.periods.get(t) ?? { events: 0, APPROVE: 0, REVIEW: 0, DECLINE: 0, fraud: 0 };
      out.push({ start: new Date(t).toISOString().slice(0, 10), ...p, fraudRate: ratio(p.fraud, p.events) });
    }
    return out;
  }
}

export function overTime(events: Iterable<EvaluatedEvent>, by: Period): PeriodFigure[] {
  const tally = new TimeTally(by);
  for (const e of events) tally.add(e);
  return tally.figures();
}
