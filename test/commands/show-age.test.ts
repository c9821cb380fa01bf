import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { useSandboxInProcess } from '../support/in-process-cli.js';
import { inReview, postInReview } from '../support/event-fixtures.js';
import { withoutEscapes } from '../support/terminal-controls.js';

/*
 * `show` with many ids: each row says how old its event is (now − eventDate, in its largest
 * whole unit), in the table on a wide terminal and in the CSV; not in --json, which stays the
 * service's fields. The events' dates are set when they are POSTed, relative to now.
 */

const cli = useSandboxInProcess();
const MINUTE = 60_000;
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();

const events: [string, number, string][] = [
  ['list-age-45m', 45 * MINUTE + 20_000, '45m'],
  ['list-age-3h', 3 * 60 * MINUTE + 20_000, '3h'],
  ['list-age-2d', 2 * 24 * 60 * MINUTE + 20_000, '2d'],
];

async function postAll(): Promise<void> {
  for (const [id, msAgo] of events) await postInReview(cli.sb, inReview(id, { eventDate: ago(msAgo) }));
}

describe('show many ids: the age column', () => {
  beforeAll(postAll);

  it('on a 160-column terminal: an age column, each row with its event age', async () => {
    const { code, stdout: screen } = await cli.run(['show', ...events.map(([id]) => id)], { columns: 160 });
    expect(code, screen).toBe(0);
    const lines = withoutEscapes(screen).split('\n');
    const header = lines.find((l) => l.startsWith('id '));
    expect(header, screen).toMatch(/\bage\b/);
    for (const [id, , age] of events)
      expect(
        lines.find((l) => l.startsWith(id)),
        screen,
      ).toMatch(new RegExp(`\\s${age}\\s`));
  });

  it('in the CSV: an age column, and --json keeps the service fields only', async () => {
    const csv = await cli.run(['show', '--csv', ...events.map(([id]) => id)]);
    expect(csv.code, csv.stderr).toBe(0);
    const records = parse(csv.stdout, { columns: true }) as Record<string, string>[];
    expect(records.map((r) => [r.id, r.age])).toEqual(events.map(([id, , age]) => [id, age]));
    const json = await cli.run(['show', '--json', ...events.map(([id]) => id)]);
    expect(json.code).toBe(0);
    for (const line of json.stdout.trim().split('\n')) expect(JSON.stringify(JSON.parse(line))).not.toMatch(/"age"/);
  });
});
