import { describe, expect, it } from 'vitest';
import { createStyle } from '../../src/render/colours.js';
import { initialModel, type Group, type Model } from '../../src/review-queue/queue-model.js';
import { renderSessionSummary } from '../../src/review-queue/queue-summary.js';
import { displayWidth } from '../../src/render/display-width.js';

/*
 * The session summary: each passed-over id under why it was passed over, each id once, and the
 * command that takes the events claimed by others.
 */

const plain = createStyle(0);

function ended(groups: Partial<Record<Group, string[]>>, details: [string, string][] = []): Model {
  const ids = Object.values(groups).flat();
  const model = initialModel(
    ids.map((id) => ({ id })),
    { claim: true, includeClaimed: false, includeDecided: false },
    { width: 80, height: 24 },
  );
  // The outcome of each id, as update() leaves it: its group, and why where the group alone does not say.
  const why = new Map(details);
  const outcomes = new Map(
    (Object.entries(groups) as [Group, string[]][]).flatMap(([group, ids]) =>
      ids.map((id) => [id, why.has(id) ? { group, detail: why.get(id)! } : { group }] as const),
    ),
  );
  return { ...model, quitting: 'quit', mode: { name: 'done' }, outcomes };
}

describe('the session summary', () => {
  it('names the state each passed-over event was in, the invalid ids with the service’s answer, and the given-back event', () => {
    const model = ended(
      {
        givenBack: ['ord-1'],
        notFound: ['ord-9'],
        invalidId: ['ord/1', 'ördér', 'a b'],
        otherState: ['evt-1', 'evt-2', 'ord-7'],
      },
      [
        ['ord/1', '422 eventId:INVALID_FORMAT'],
        ['ördér', '422 eventId:INVALID_FORMAT'],
        ['a b', '422 eventId:INVALID_FORMAT'],
        ['evt-1', 'ON_HOLD'],
        ['evt-2', 'ON_HOLD'],
        ['ord-7', 'APPROVED'],
      ],
    );
    const text = renderSessionSummary(model, plain, 100, { logPath: null, serviceFlags: [] });
    expect(text.split('\n')).toEqual([
      'Review session (quit): 8 events in the queue',
      '  given back                                  1  ord-1',
      '  not found                                   1  ord-9',
      '  invalid id (422 eventId:INVALID_FORMAT)     3  ord/1  ördér  "a b"',
      '  in state ON_HOLD                            2  evt-1  evt-2',
      '  in state APPROVED                           1  ord-7',
    ]);
  });

  it('gives the command that takes the events claimed by others, reaching the same service', () => {
    const model = ended({ claimedElsewhere: ['e2', 'e4'] });
    const text = renderSessionSummary(model, plain, 80, { logPath: null, serviceFlags: ['--profile', 'night shift'] });
    expect(text).toMatch(/claimed by others\s+2 {2}e2 {2}e4/);
    expect(text).toContain("\n  fraudctl review --profile 'night shift' --include-claimed e2 e4");
  });

  it('gives the command that gives back the events still claimed, with their ids, reaching the same service', () => {
    const text = renderSessionSummary(ended({ stillClaimed: ['e1', 'e 3'] }), plain, 80, {
      logPath: null,
      serviceFlags: ['--base-url', 'https://fraud.example.com'],
    });
    expect(text).toContain(
      "\n  fraudctl set-state --base-url https://fraud.example.com e1 'e 3' --state PENDING_REVIEW --include-claimed",
    );
    expect(text).not.toContain(' ID ');
  });

  it('never cuts an id: one longer than the room after the label starts on the next line', () => {
    const long = `evt-${'x'.repeat(60)}`;
    const text = renderSessionSummary(ended({ givenBack: [long] }), plain, 60, { logPath: null, serviceFlags: [] });
    expect(text.split('\n').slice(1)).toEqual(['  given back             1', `    ${long}`]);
  });
});

describe('the overdue count of --sla', () => {
  const now = Date.parse('2026-11-25T12:00:00Z');
  const H = 3_600_000;
  const model = (): Model => {
    const base = ended({
      approved: ['old-done', 'new-done'],
      givenBack: ['old-back'],
      notReached: ['old-later'],
      otherState: ['old-elsewhere'],
    });
    const dates: [string, number][] = [
      ['old-done', now - 48 * H],
      ['new-done', now - H],
      ['old-back', now - 5 * H],
      ['old-later', now - 30 * H],
      ['old-elsewhere', now - 50 * H],
    ];
    return { ...base, eventDates: new Map(dates) };
  };

  it('counts the events past the deadline at the end: decided by this session, and left awaiting review (one decided elsewhere is neither)', () => {
    const text = renderSessionSummary(model(), plain, 80, { logPath: null, serviceFlags: [], sla: 4 * H, now });
    expect(text).toMatch(/^ {2}overdue \(SLA 4h\) {2,}3 {2}1 decided, 2 left$/m);
  });

  it('a decision is judged when it was answered: one made inside the SLA is not overdue, though the session ended past it', () => {
    // `mid-done` is 5 h old at the end, and was decided when it was 2 h old.
    const base = model();
    const within = {
      ...base,
      outcomes: new Map([...base.outcomes, ['mid-done', { group: 'approved' as const }]]),
      eventDates: new Map([...base.eventDates, ['mid-done', now - 5 * H]]),
      decidedAt: new Map([['mid-done', now - 3 * H]]),
    };
    const text = renderSessionSummary(within, plain, 80, { logPath: null, serviceFlags: [], sla: 4 * H, now });
    expect(text).toMatch(/^ {2}overdue \(SLA 4h\) {2,}3 {2}1 decided, 2 left$/m);
    // The same decision answered when the event was 4 h 30 old is overdue.
    const late = { ...within, decidedAt: new Map([['mid-done', now - 30 * 60_000]]) };
    expect(renderSessionSummary(late, plain, 80, { logPath: null, serviceFlags: [], sla: 4 * H, now })).toMatch(
      /^ {2}overdue \(SLA 4h\) {2,}4 {2}2 decided, 2 left$/m,
    );
  });

  it('without --sla, no overdue line', () => {
    expect(renderSessionSummary(model(), plain, 80, { logPath: null, serviceFlags: [], now })).not.toContain('overdue');
  });
});

describe('a long queue, a narrow terminal', () => {
  it('counts what was not reached, so the analyst’s own decisions stay in sight at 80×24; --all-ids lists them', () => {
    const rest = Array.from({ length: 1844 }, (_, i) => `ord-${157 + i}`);
    const model = ended({
      approved: ['ord-1', 'ord-2'],
      declined: ['ord-3'],
      givenBack: ['ord-156'],
      notReached: rest,
    });
    const text = renderSessionSummary(model, plain, 80, { logPath: null, serviceFlags: [] });
    expect(text.split('\n')).toEqual([
      'Review session (quit): 1,848 events in the queue',
      '  approved                2  ord-1  ord-2',
      '  declined                1  ord-3',
      '  given back              1  ord-156',
      '  not reached         1,844  from ord-157 on (--all-ids lists them)',
    ]);
    const all = renderSessionSummary(model, plain, 80, { logPath: null, serviceFlags: [], allIds: true });
    for (const id of rest) expect(all).toContain(` ${id}`);
  });

  it.each([60, 70, 80])(
    'at %i columns every line of prose wraps at words; only a command is longer, whole on its line',
    (width) => {
      const model = {
        ...ended(
          {
            approved: ['ord-1'],
            invalidId: ['ord/1'],
            otherState: ['ord-7'],
            claimedElsewhere: ['e2', 'e4'],
            stillClaimed: ['e9'],
          },
          [
            ['ord/1', '422 eventId:INVALID_FORMAT'],
            ['ord-7', 'ON_HOLD_FOR_THE_CHARGEBACK_TEAM_REVIEW'],
          ],
        ),
        logProblem: 'the disk is full (ENOSPC): no line could be written after line 41',
      };
      const options = { logPath: '/var/log/fraud/team-review.log', serviceFlags: ['--profile', 'night shift'] };
      const lines = renderSessionSummary(model, plain, width, options).split('\n');
      for (const line of lines) {
        if (line.startsWith('  fraudctl ')) continue;
        expect(displayWidth(line), line).toBeLessThanOrEqual(width);
      }
      // Words whole: each sentence, its lines joined again, reads as written (a break inside a word would not).
      const joined = lines
        .filter((l) => !l.startsWith('  fraudctl '))
        .map((l) => l.trim())
        .join(' ');
      for (const sentence of [
        'To take them over (when the session that claimed them ended without giving them back):',
        'These events are still IN_REVIEW under this session: give them back with',
        'log: /var/log/fraud/team-review.log (the session ended here: the disk is full (ENOSPC): no line could be written after line 41; claims given back after that may be missing from it)',
        'invalid id (422 eventId:INVALID_FORMAT)',
        'in state ON_HOLD_FOR_THE_CHARGEBACK_TEAM_REVIEW',
      ]) {
        expect(joined, sentence).toContain(sentence);
      }
      const text = lines.join('\n');
      expect(text).toContain("fraudctl review --profile 'night shift' --include-claimed e2 e4");
    },
  );
});
