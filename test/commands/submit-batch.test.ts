import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { useSandboxInProcess } from '../support/in-process-cli.js';
import { byLine, makeEvent, makeLines, readResults } from '../support/batch-events.js';
import { BIN, nodeWarnings, startCli } from '../support/cli.js';
import { describeNeeding } from '../support/prerequisites.js';

/*
 * fraudctl submit in batch mode against the real sandbox, run in-process through main: formats,
 * results and rejects files, the summary and exit codes. As a process only what needs one: a
 * Ctrl-C, a terminal's progress bar, a reader of stdout going away. Faults, kills and resume:
 * submit-batch-faults.test.ts.
 */

const cli = useSandboxInProcess();
let fileNo = 0;
const file = (name: string, content: string | Buffer) => {
  const path = join(cli.dir, `${++fileNo}-${name}`);
  writeFileSync(path, content);
  return path;
};
const outPath = (name: string) => join(cli.dir, `${++fileNo}-${name}`);

describe('fraudctl submit: JSON values in any layout', () => {
  /** Events pretty-printed one after another, as `jq . events.jsonl` prints them, and the line where each starts. */
  const jqOutput = (prefix: string, count: number) => {
    const events = makeLines(prefix, count).map((line) => JSON.stringify(JSON.parse(line), null, 2));
    const starts: number[] = [];
    for (let i = 0, line = 1; i < count; line += events[i]!.split('\n').length, i++) starts.push(line);
    return { text: `${events.join('\n')}\n`, starts };
  };

  it('a pretty-printed event with --out is a batch of one value, named by line 1 column 1', async () => {
    const event = JSON.stringify({ ...makeEvent('pretty-one', 1) }, null, 2);
    const out = outPath('results.jsonl');
    const result = await cli.run(['submit', file('one.json', `${event}\n`), '--out', out]);
    expect(result.code, result.stderr).toBe(0);
    expect(readResults(out)).toEqual([
      expect.objectContaining({ line: 1, column: 1, id: 'pretty-one-1', outcome: 'DECIDED' }),
    ]);
  });

  it.each([
    ['plain', (text: string) => text],
    ['gzip', (text: string) => gzipSync(text)],
  ])(
    'values as jq prints them, from stdin (%s): a batch of every value, each named by the line where it starts',
    async (kind, encode) => {
      const prefix = `jq-${kind}`;
      const { text, starts } = jqOutput(prefix, 12);
      const out = outPath('results.jsonl');
      const result = await cli.run(['submit', '-', '--out', out], { input: encode(text) });
      expect(result.code, result.stderr).toBe(0);
      const { lines, repeated } = byLine(readResults(out));
      expect(repeated).toEqual([]);
      expect([...lines.keys()].sort((a, b) => a - b)).toEqual(starts);
      starts.forEach((line, i) =>
        expect(lines.get(line)).toMatchObject({ column: 1, id: `${prefix}-${i + 1}`, outcome: 'DECIDED' }),
      );
      expect(result.stderr).toMatch(/Batch done: 12 events/);
    },
  );

  it('a pretty-printed file with --out (gzip too) is a batch of one value', async () => {
    const event = JSON.stringify(makeEvent('pretty-gz', 1), null, 2);
    const out = outPath('results.jsonl');
    const result = await cli.run(['submit', file('one.json.gz', gzipSync(event)), '--out', out]);
    expect(result.code, result.stderr).toBe(0);
    expect(readResults(out)).toEqual([
      expect.objectContaining({ line: 1, column: 1, id: 'pretty-gz-1', outcome: 'DECIDED' }),
    ]);
  });

  it('a broken value: REJECTED with where it started, the line and column where it broke in the summary, and the batch goes on', async () => {
    const { text } = jqOutput('jq-broken', 3);
    const lines = text.split('\n');
    // The second event (lines 7-12) loses the comma after its first property.
    const second = lines.findIndex((l, i) => i > 0 && l === '{');
    lines[second + 1] = lines[second + 1]!.replace(/,$/, '');
    const out = outPath('results.jsonl');
    const rejects = outPath('rejects.jsonl');
    const result = await cli.run(['submit', '-', '--out', out, '--rejects', rejects], { input: lines.join('\n') });
    expect(result.code).toBe(1);
    const results = readResults(out);
    expect(
      results
        .map((r) => [r.line, r.column, r.outcome, r.errorCodes])
        .sort((a, b) => (a[0] as number) - (b[0] as number)),
    ).toEqual([
      [1, 1, 'DECIDED', []],
      [second + 1, 1, 'REJECTED', ['NOT_JSON']],
      [second + 1 + second, 1, 'DECIDED', []],
    ]);
    expect(result.stderr).toContain(`not JSON (at line ${second + 3} column 3: unexpected "`);
    expect(readFileSync(rejects, 'utf8')).toContain('"id": "jq-broken-2"');
  });

  it('a broken value with no value start after it: the values before it are screened, then it stops saying where, exit 1', async () => {
    const { text } = jqOutput('jq-stop', 2);
    const out = outPath('results.jsonl');
    const result = await cli.run(['submit', '-', '--out', out], { input: `${text}{"id": "jq-stop-3", "amount": }\n` });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /stdin: not JSON at line \d+ column 31: unexpected "}", and no later line starts a value at column 1/,
    );
    expect(readResults(out).map((r) => [r.id, r.outcome])).toEqual(
      expect.arrayContaining([
        ['jq-stop-1', 'DECIDED'],
        ['jq-stop-2', 'DECIDED'],
      ]),
    );
    expect(readResults(out)).toHaveLength(2);
  });
});

describe('fraudctl submit: the summary and its advice', () => {
  const hintOf = (stderr: string) => stderr.trimEnd().split('\n').at(-1)!;

  it('[1,2 without --out: each value named once with its column, and a hint that works as written (no --resume without --out)', async () => {
    const path = file('arr.json', '[1,2');
    const result = await cli.run(['submit', path]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^Batch stopped: 2 events in /m);
    expect(result.stderr.split('\n').filter((l) => l.startsWith('  line '))).toEqual([
      '  line 1 column 2: not a JSON object (number)',
      '  line 1 column 4: not a JSON object (number)',
    ]);
    expect(result.stderr).toMatch(/^error: .*arr\.json ends inside a JSON array$/m);
    expect(hintOf(result.stderr)).toBe('the input may be cut short: complete it, then run the same command again');
    expect(result.stderr).not.toContain('--resume');

    // Followed as written: the input completed, the same command.
    writeFileSync(path, '[1,2]');
    const again = await cli.run(['submit', path]);
    expect(again.stderr).not.toContain('--resume');
    expect(again.stderr).toMatch(/^Batch done: 2 events in /m);
    expect(again.stderr).toMatch(/^error: 2 of 2 events got no decision$/m);
  });

  it('cut short with --out: the hint says --resume, and following it skips what was done', async () => {
    const [e1, e2, e3] = [1, 2, 3].map((n) => JSON.stringify(makeEvent('cut-resume', n)));
    const path = file('cut.json', `[${e1},\n${e2},\n`);
    const out = outPath('results.jsonl');
    const result = await cli.run(['submit', path, '--out', out]);
    expect(result.code).toBe(1);
    expect(hintOf(result.stderr)).toBe(
      'the input may be cut short: complete it, then run the same command again with --resume (it skips what was done)',
    );
    expect(readResults(out).map((r) => r.id)).toEqual(expect.arrayContaining(['cut-resume-1', 'cut-resume-2']));

    writeFileSync(path, `[${e1},\n${e2},\n${e3}]\n`);
    const resumed = await cli.run(['submit', path, '--out', out, '--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/^Batch done: 1 event in .*, 2 already done by the earlier run$/m);
    const { lines, repeated } = byLine(readResults(out));
    expect(repeated).toEqual([]);
    expect([...lines.values()].map((r) => [r.id, r.outcome]).sort()).toEqual([
      ['cut-resume-1', 'DECIDED'],
      ['cut-resume-2', 'DECIDED'],
      ['cut-resume-3', 'DECIDED'],
    ]);
  });

  it('a broken value with nothing after it, without --out: the hint has no --resume either', async () => {
    const result = await cli.run(['submit', '-', '--concurrency', '2'], {
      input: `${JSON.stringify(makeEvent('broken-no-out', 1), null, 2)}\n{"id": "x", "amount": }\n`,
    });
    expect(result.code).toBe(1);
    expect(hintOf(result.stderr)).toBe('fix the input there, then run the same command again');
  });
});

describe('fraudctl submit (batch)', () => {
  it('an event the service already had (200, not 201): its line says so and carries its state now; a new one does not', async () => {
    const lines = makeLines('existed', 3);
    const first = await cli.run([
      'submit',
      file('existed-1.jsonl', `${lines[0]}\n`),
      '--out',
      outPath('existed-1.jsonl'),
    ]);
    expect(first.code, first.stderr).toBe(0);
    expect(
      (await cli.sb.call('PATCH', '/event/existed-1/state', { body: { state: 'DECLINED', comments: 'colleague' } }))
        .status,
    ).toBe(200);
    const out = outPath('existed-all.jsonl');
    const result = await cli.run(['submit', file('existed-all.jsonl', `${lines.join('\n')}\n`), '--out', out]);
    expect(result.code, result.stderr).toBe(0);
    const { lines: seen } = byLine(readResults(out));
    expect(seen.get(1)).toMatchObject({
      id: 'existed-1',
      outcome: 'DECIDED',
      status: 200,
      alreadyExisted: true,
      stateNow: 'DECLINED',
    });
    // The GET that read its state gave its amount in the base currency too.
    expect(seen.get(1)!.amountInBaseCurrency).toEqual(expect.any(Number));
    expect(seen.get(2)).toMatchObject({ id: 'existed-2', status: 201, alreadyExisted: false, stateNow: null });
  });

  it('screens every line of a JSON Lines file: one result per line, each event stored', async () => {
    const lines = makeLines('jsonl-basic', 40);
    const input = file('events.jsonl', `${lines.join('\n')}\n`);
    const out = outPath('results.jsonl');
    const result = await cli.run(['submit', input, '--out', out]);
    expect(result.code, result.stderr).toBe(0);
    const results = readResults(out);
    expect(results).toHaveLength(40);
    const { lines: seen, repeated } = byLine(results);
    expect(repeated).toEqual([]);
    for (let n = 1; n <= 40; n++) {
      const r = seen.get(n)!;
      expect(r.id).toBe(`jsonl-basic-${n}`);
      expect(r.outcome).toBe('DECIDED');
      expect(r.status).toBe(201);
      expect(['APPROVE', 'REVIEW', 'DECLINE']).toContain(r.actionType);
      expect(Object.keys(r)).toEqual([
        ...['line', 'id', 'outcome', 'status', 'actionType', 'totalRiskScore', 'errorType', 'errorCodes', 'attempts'],
        ...['latencyMs', 'column', 'idAssigned', 'alreadyExisted', 'stateNow'],
        ...['ruleIds', 'eventDate', 'amount', 'currency', 'amountInBaseCurrency', 'baseCurrency'],
      ]);
      const stored = await cli.sb.call('GET', `/event/jsonl-basic-${n}/risk-assessment`);
      expect(stored.status).toBe(200);
      const assessment = stored.json as { actionType: string; alerts: { ruleId: string }[] };
      expect(assessment.actionType).toBe(r.actionType);
      // What evaluate needs is on the line, so that it reads nothing back: the rules matched, the date, the amount.
      expect(r.ruleIds).toEqual(assessment.alerts.map((a) => a.ruleId));
      const summary = (await cli.sb.call('GET', `/event/jsonl-basic-${n}`)).json as Record<string, unknown>;
      const { eventDate, amount, currency } = summary;
      expect({ eventDate: r.eventDate, amount: r.amount, currency: r.currency }).toEqual({
        eventDate,
        amount,
        currency,
      });
      // The contract's POST answer has no amount in the base currency: the run read the base
      // currency once (EUR), and an event sent in it has its amount as its base amount.
      expect(r.baseCurrency).toBe('EUR');
      expect(r.amountInBaseCurrency).toBe(currency === 'EUR' ? summary.amountInBaseCurrency : null);
    }
    expect(result.stderr).toMatch(/Batch done: 40 events/);
    expect(result.stderr).toMatch(/decided\s+40/);
    expect(result.stderr).toContain(`results    ${out}`);
    expect(result.stdout).toBe('');
  });

  it('records bad lines as REJECTED with the line and reason, keeps going, writes them to --rejects, and exits 1', async () => {
    const good = makeLines('mixed', 4);
    const huge = JSON.stringify({ id: 'mixed-huge', amount: 1, currency: 'EUR', userName: 'x'.repeat(1024 * 1024) });
    const missingAmount = JSON.stringify({ id: 'mixed-422', currency: 'EUR' });
    const inputLines = [
      good[0],
      '{"amount": 1,',
      good[1],
      '',
      '[1, 2]',
      '"just a string"',
      huge,
      missingAmount,
      good[2],
      '   ',
      good[3],
    ];
    const input = file('mixed.jsonl', inputLines.join('\n'));
    const out = outPath('results.jsonl');
    const rejects = outPath('rejects.jsonl');
    const result = await cli.run(['submit', input, '--out', out, '--rejects', rejects]);
    expect(result.code).toBe(1);
    const { lines, repeated } = byLine(readResults(out));
    expect(repeated).toEqual([]);
    // Blank lines (4 and 10) are not events and get no result.
    expect([...lines.keys()].sort((a, b) => a - b)).toEqual([1, 2, 3, 5, 6, 7, 8, 9, 11]);
    for (const n of [1, 3, 9, 11]) expect(lines.get(n)!.outcome).toBe('DECIDED');
    expect(lines.get(2)).toMatchObject({
      outcome: 'REJECTED',
      errorType: 'INVALID_LINE',
      errorCodes: ['NOT_JSON'],
      attempts: 0,
      status: null,
    });
    expect(lines.get(5)).toMatchObject({ outcome: 'REJECTED', errorCodes: ['NOT_AN_OBJECT'], attempts: 0 });
    expect(lines.get(6)).toMatchObject({ outcome: 'REJECTED', errorCodes: ['NOT_AN_OBJECT'], attempts: 0 });
    expect(lines.get(7)).toMatchObject({ outcome: 'REJECTED', errorCodes: ['TOO_LARGE'], attempts: 0 });
    expect(lines.get(8)).toMatchObject({
      outcome: 'REJECTED',
      id: 'mixed-422',
      status: 422,
      errorType: 'VALIDATION_ERROR',
      attempts: 1,
    });
    expect(lines.get(8)!.errorCodes).toContain('amount:REQUIRED');
    expect((await cli.sb.call('GET', '/event/mixed-huge')).status).toBe(404);
    // The rejects file holds exactly the lines without a decision, as they were, in a form that can be sent again.
    const rejected = readFileSync(rejects, 'utf8').split('\n').filter(Boolean);
    expect(new Set(rejected)).toEqual(new Set(['{"amount": 1,', '[1, 2]', '"just a string"', huge, missingAmount]));
    expect(result.stderr).toMatch(/decided\s+4\b/);
    expect(result.stderr).toMatch(/rejected\s+5\b/);
    expect(result.stderr).toMatch(/line 2: not JSON/);
    expect(result.stderr).toMatch(/^error: 5 of 9 events got no decision/m);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    // The summary says how to send the rejects again, as a command that works as printed: here it
    // sends the five lines, which are rejected again for the same reasons (none was fixed).
    const hint = /to send them again: (fraudctl submit .*)$/m.exec(result.stderr)?.[1];
    expect(hint).toBe(`fraudctl submit ${rejects}`);
    const again = await cli.run(hint!.split(' ').slice(1));
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^error: 5 of 5 events got no decision/m);
  });

  it('events that come slowly on stdin: each is decided as it comes; Ctrl-C while waiting for the next ends at once (exit 130) and sends nothing more', async () => {
    const out = outPath('results.jsonl');
    const running = startCli(['submit', '-', '--out', out], { env: cli.env(), keepStdinOpen: true });
    // Result lines, the header (the first line) not counted.
    const recorded = () =>
      existsSync(out) ? Math.max(0, readFileSync(out, 'utf8').split('\n').filter(Boolean).length - 1) : 0;
    try {
      const lines = makeLines('trickle', 3);
      // Two lines make it a batch; each is decided before the next comes.
      running.child.stdin.write(`${lines[0]}\n${lines[1]}\n`);
      await expect
        .poll(recorded, {
          timeout: 5000,
          message: `two results while no more input comes:\n${running.output().stderr}`,
        })
        .toBe(2);
      running.child.kill('SIGINT');
      const result = await Promise.race([
        running.done,
        new Promise<never>((_, reject) =>
          setTimeout(
            () => reject(new Error(`still running 5 s after SIGINT (stdin still open):\n${running.output().stderr}`)),
            5000,
          ),
        ),
      ]);
      expect(result.code, result.stderr).toBe(130);
      expect(result.stderr).toContain('interrupted: lines in flight were finished, no new line was read');
      expect(recorded()).toBe(2);
      expect((await cli.sb.call('GET', '/event/trickle-3')).status).toBe(404);
    } finally {
      running.child.kill('SIGKILL');
    }
  });

  it('reads JSON Lines from stdin and, with --json and no --out, prints the results on stdout and the summary as JSON on stderr', async () => {
    const lines = makeLines('stdin-batch', 25);
    const result = await cli.run(['submit', '-', '--json'], { input: lines.join('\n') });
    expect(result.code, result.stderr).toBe(0);
    const results = result.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { line: number; outcome: string; id: string });
    expect(results.map((r) => r.line).sort((a, b) => a - b)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    expect(results.every((r) => r.outcome === 'DECIDED')).toBe(true);
    const summary = JSON.parse(result.stderr.slice(result.stderr.indexOf('{'))) as Record<string, unknown>;
    expect(summary).toMatchObject({
      lines: 25,
      decided: 25,
      rejected: 0,
      failed: 0,
      unknown: 0,
      stopped: null,
      results: null,
    });
    expect((summary.latencyMs as { p99: number }).p99).toBeGreaterThanOrEqual(0);
  });

  it('reads a gzip-compressed JSON array, each element named by the line and column where it starts', async () => {
    const events = Array.from({ length: 12 }, (_, i) => makeEvent('gz-array', i + 1));
    const input = file('events.json.gz', gzipSync(JSON.stringify(events, null, 2)));
    const out = outPath('results.jsonl');
    const result = await cli.run(['submit', input, '--out', out, '--json']);
    expect(result.code, result.stderr).toBe(0);
    const { lines } = byLine(readResults(out));
    expect(lines.size).toBe(12);
    // Each element is pretty-printed over the same number of lines, after the `[` line.
    const height = JSON.stringify(events[0], null, 2).split('\n').length;
    for (let n = 1; n <= 12; n++)
      expect(lines.get(2 + (n - 1) * height)).toMatchObject({ column: 3, id: `gz-array-${n}`, outcome: 'DECIDED' });
    expect(JSON.parse(result.stdout)).toMatchObject({ lines: 12, decided: 12, results: out });
    expect((await cli.sb.call('GET', '/event/gz-array-12')).status).toBe(200);
  });

  it('reads gzip-compressed JSON Lines from stdin', async () => {
    const lines = makeLines('gz-stdin', 10);
    const out = outPath('results.jsonl');
    const result = await cli.run(['submit', '-', '--out', out, '--quiet'], { input: gzipSync(lines.join('\n')) });
    expect(result.code, result.stderr).toBe(0);
    expect(readResults(out).filter((r) => r.outcome === 'DECIDED')).toHaveLength(10);
    expect(result.stderr).toBe('');
  });

  it('--max-errors stops the batch after that many lines without a decision', async () => {
    const lines = [...Array.from({ length: 30 }, () => 'not json'), ...makeLines('max-errors', 5)];
    const out = outPath('results.jsonl');
    const result = await cli.run([
      'submit',
      file('bad.jsonl', lines.join('\n')),
      '--out',
      out,
      '--max-errors',
      '3',
      '--concurrency',
      '1',
    ]);
    expect(result.code).toBe(1);
    expect(readResults(out)).toHaveLength(3);
    expect(result.stderr).toContain('stopped after --max-errors');
    expect(result.stderr).toContain('--resume');
    expect((await cli.sb.call('GET', '/event/max-errors-1')).status).toBe(404);
  });

  it.each([1, 16])(
    '--max-errors 2 at concurrency %i stops at exactly 2 lines rejected locally, sending nothing after',
    async (concurrency) => {
      const lines = [...Array.from({ length: 6 }, () => 'not json'), ...makeLines(`max-exact-${concurrency}`, 3)];
      const out = outPath('results.jsonl');
      const result = await cli.run([
        'submit',
        file('six-bad.jsonl', lines.join('\n')),
        '--out',
        out,
        '--max-errors',
        '2',
        '--concurrency',
        String(concurrency),
      ]);
      expect(result.code).toBe(1);
      const results = readResults(out);
      expect(results.map((r) => [r.line, r.outcome])).toEqual([
        [1, 'REJECTED'],
        [2, 'REJECTED'],
      ]);
      expect((await cli.sb.call('GET', `/event/max-exact-${concurrency}-1`)).status).toBe(404);
    },
  );

  it('records the id the service assigned to an event sent without one, in the results file and on stdout', async () => {
    const { id: _unused, ...event } = makeEvent('ignored', 1);
    const out = outPath('results.jsonl');
    const input = file('no-ids.jsonl', `${JSON.stringify(event)}\n${JSON.stringify(event)}\n`);
    const result = await cli.run(['submit', input, '--out', out, '--quiet']);
    expect(result.code, result.stderr).toBe(0);
    const results = readResults(out);
    expect(results).toHaveLength(2);
    for (const r of results) {
      expect(r.id).toEqual(expect.any(String));
      // The id names the stored event.
      expect((await cli.sb.call('GET', `/event/${encodeURIComponent(r.id!)}`)).status).toBe(200);
    }
    expect(results[0]!.id).not.toBe(results[1]!.id);
    const piped = await cli.run(['submit', '-', '--json'], {
      input: `${JSON.stringify(event)}\n${JSON.stringify(event)}\n`,
    });
    const lines = piped.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: unknown; outcome: string });
    expect(lines.every((l) => typeof l.id === 'string' && l.outcome === 'DECIDED')).toBe(true);
  });

  it('refuses to overwrite an existing results file unless resuming, and --resume needs --out', async () => {
    const out = file('taken.jsonl', '{"line":1}\n');
    const input = file('one.jsonl', `${makeLines('taken', 2).join('\n')}\n`);
    const taken = await cli.run(['submit', input, '--out', out]);
    expect(taken.code).toBe(2);
    expect(taken.stderr).toMatch(/^error: .*taken\.jsonl already exists$/m);
    expect(taken.stderr).toContain('--resume');
    expect(readFileSync(out, 'utf8')).toBe('{"line":1}\n');
    const noOut = await cli.run(['submit', input, '--resume']);
    expect(noOut.code).toBe(2);
    expect(noOut.stderr).toMatch(/--resume needs --out/);
    expect((await cli.sb.call('GET', '/event/taken-1')).status).toBe(404);
  });

  it('--resume with another input than the results file was written for: stops before sending, exit 2', async () => {
    const out = outPath('results.jsonl');
    const first = await cli.run(['submit', file('a.jsonl', makeLines('resume-a', 5).join('\n')), '--out', out]);
    expect(first.code, first.stderr).toBe(0);
    const other = await cli.run([
      'submit',
      file('b.jsonl', makeLines('resume-b', 400).join('\n')),
      '--out',
      out,
      '--resume',
    ]);
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(
      /^error: .*results\.jsonl does not belong to this input: its line \d is event "resume-a-\d", the input's is "resume-b-\d"$/m,
    );
    expect(other.stderr).toContain('stopped: the results file was written for another input');
    expect(readResults(out)).toHaveLength(5);
    for (const id of ['resume-b-6', 'resume-b-400'])
      expect((await cli.sb.call('GET', `/event/${id}`)).status).toBe(404);
  });

  it('stops at once when the service refuses the key, with exit 3', async () => {
    const out = outPath('results.jsonl');
    const result = await cli.run(
      ['submit', file('auth.jsonl', makeLines('auth', 50).join('\n')), '--out', out, '--concurrency', '2'],
      { env: { FRAUDCTL_API_KEY: 'wrong-key' } },
    );
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/^error: the service did not accept the API key/m);
    expect(result.stderr).toContain('stopped: the service refused the API key');
    expect(readResults(out).length).toBeLessThanOrEqual(2);
    expect(result.stderr).not.toContain('wrong-key');
  });

  it.each([
    [['--concurrency', '0'], /concurrency is a whole number from 1 to 256/],
    [['--concurrency', '300'], /concurrency is a whole number from 1 to 256/],
    [['--rate', '-1'], /rate is a positive number/],
    [['--max-errors', 'x'], /--max-errors is a whole number/],
  ])('rejects bad batch options %j with exit 2', async (args, message) => {
    const result = await cli.run(['submit', 'examples/review.json', ...args]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
  });

  it('keeps one-event mode for a file holding one object, also with a .json name and a single line', async () => {
    const single = file('single.json', JSON.stringify(makeEvent('single-mode', 1)));
    const result = await cli.run(['submit', single]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^(APPROVE|REVIEW|DECLINE)/);
    expect(existsSync(single)).toBe(true);
  });
});

describeNeeding(['script'], 'fraudctl submit (batch) on a terminal', () => {
  it('shows a progress bar with done/total, rate, ETA and running counts, then the summary', async () => {
    const input = file('tty.jsonl', `${makeLines('tty-progress', 600).join('\n')}\n`);
    const command = [process.execPath, BIN, 'submit', input, '--concurrency', '1']
      .map((a) => `'${a.replace(/'/g, `'\\''`)}'`)
      .join(' ');
    const { code, screen } = await new Promise<{ code: number | null; screen: string }>((resolve, reject) => {
      const child = spawn('script', ['-qfec', command, '/dev/null'], { env: { ...cli.env(), TERM: 'xterm' } });
      let screen = '';
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`no end; screen so far:\n${screen}`));
      }, 30_000);
      child.stdout.on('data', (d: Buffer) => (screen += d.toString()));
      child.on('close', (c) => {
        clearTimeout(timer);
        resolve({ code: c, screen });
      });
    });
    expect(code).toBe(0);
    expect(nodeWarnings(screen)).toEqual([]);
    expect(screen).toMatch(
      /[\d,]+\/600 events · [\d,]+\/s · ETA \S+ · APPROVE [\d,]+ · REVIEW [\d,]+ · DECLINE [\d,]+ · errors 0/,
    );
    expect(screen).toMatch(/600\/600 events/);
    expect(screen).toMatch(/Batch done: 600 events/);
  });
});

describe('fraudctl submit (batch) | head', () => {
  it('stops the batch when the reader of its results goes away: one clear line with the count of unwritten results, exit 1, no crash', async () => {
    const child = spawn(process.execPath, [BIN, 'submit', '-', '--json'], { env: cli.env() });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.once('data', () => child.stdout.destroy());
    // The batch stops reading its input too, so our writing to it may fail the same way.
    child.stdin.on('error', () => {});
    child.stdin.end(makeLines('epipe', 3000).join('\n'));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(1);
    expect(stderr).toMatch(
      /^error: stdout was closed after [\d,]+ results: the batch stopped; [\d,]+ events? (was|were) sent whose results could not be written$/m,
    );
    expect(stderr).not.toMatch(/\n\s+at /);
    expect(nodeWarnings(stderr)).toEqual([]);
    expect((await cli.sb.call('GET', '/event/epipe-3000')).status).toBe(404);
  });
});
