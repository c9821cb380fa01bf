import { PassThrough } from 'node:stream';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import type { CliContext } from '../../src/process/cli-context.js';
import { UsageError } from '../../src/errors/cli-error.js';
import { submitCommand, type SubmitOptions } from '../../src/commands/submit/command.js';
import { setStateCommand } from '../../src/commands/set-state/command.js';
import { showCommand, type ShowOptions } from '../../src/commands/show/command.js';
import { reviewCommand } from '../../src/commands/review/command.js';
import { alertsCommand } from '../../src/commands/alerts/command.js';
import { logCommand } from '../../src/commands/log/command.js';
import { historyCommand } from '../../src/commands/history/command.js';
import { reportCommand } from '../../src/commands/report/command.js';
import { logoutCommand } from '../../src/commands/logout/command.js';
import { loginCommand } from '../../src/commands/login/command.js';
import { configCommand } from '../../src/commands/config/command.js';
import { doctorCommand } from '../../src/commands/doctor/command.js';
import { sandboxCommand } from '../../src/commands/sandbox/command.js';
import { completeCommand, completionCommand } from '../../src/commands/completion/command.js';
import { helpCommand } from '../../src/commands/help/command.js';

/*
 * The command files' one job, tested in-process (as gh's NewCmdX(f, runF) is): argv → the work's
 * options, defaults included, and the flag combinations refused before any work runs. The work is
 * replaced by a function that records what it was asked; what the work does with it is tested
 * elsewhere through each room's run(options, deps), in-process (test/commands/NAME/…), and as a
 * process only where the process is the point: signals, exit codes, terminals, pipes.
 */

function context(): CliContext {
  return {
    stdin: new PassThrough(),
    stdout: new PassThrough(),
    stderr: new PassThrough(),
    env: {},
    debug: false,
    waitForShutdown: () => new Promise(() => {}),
    onStdoutClosed: () => () => {},
  };
}

/** Parses `argv` with `make`'s command under a root that has the global --json, as program.ts's does. */
async function parse<T>(make: (context: CliContext, run: never) => Command, argv: string[]): Promise<T[]> {
  const asked: T[] = [];
  const root = new Command('fraudctl')
    .option('--json')
    .exitOverride()
    .configureOutput({ writeOut: () => {}, writeErr: () => {} });
  const record = async (...args: unknown[]) => {
    asked.push(args.slice(1) as T);
  };
  const sub = make(context(), record as never);
  root.addCommand(sub.exitOverride().configureOutput({ writeOut: () => {}, writeErr: () => {} }));
  await root.parseAsync(argv, { from: 'user' });
  return asked;
}

/**
 * For a command in a room of its own (src/commands/NAME/): argv → the one options value its run
 * was asked, under a root with program.ts's global flags that the rooms read.
 */
async function parseRoom<T>(
  make: (context: CliContext, run: (command: Command, options: T) => Promise<void>) => Command,
  argv: string[],
) {
  const asked: T[] = [];
  const quiet = { writeOut: () => {}, writeErr: () => {} };
  const root = new Command('fraudctl')
    .option('--base-url <url>')
    .option('--profile <name>')
    .option('--json')
    .option('--no-color')
    .option('--no-input')
    .option('--insecure-http')
    .option('--debug')
    .exitOverride()
    .configureOutput(quiet);
  const sub = make(context(), async (_command, options) => void asked.push(options));
  // A command's own sub-commands (config's verbs) too: an error is thrown, not an exit.
  for (const command of [sub, ...sub.commands]) command.exitOverride().configureOutput(quiet);
  root.addCommand(sub);
  await root.parseAsync(argv, { from: 'user' });
  expect(asked).toHaveLength(1);
  return asked[0]!;
}

/** What the one run of the work was asked. */
async function parseOne<T>(make: (context: CliContext, run: never) => Command, argv: string[]): Promise<T> {
  const asked = await parse<T>(make, argv);
  expect(asked).toHaveLength(1);
  return asked[0]!;
}

describe('submit: argv → SubmitOptions', () => {
  const submit = (argv: string[]) => parseRoom<SubmitOptions>(submitCommand, argv);
  const defaults: SubmitOptions = {
    source: 'event.json',
    batch: false,
    concurrency: 16,
    rate: null,
    maxErrors: null,
    out: null,
    rejects: null,
    resume: false,
    quiet: false,
    json: false,
    noColor: false,
  };

  it('a file alone: not a batch by flags, the default concurrency (16) from commander', async () => {
    expect(await submit(['submit', 'event.json'])).toStrictEqual(defaults);
  });

  it('any batch option makes a batch, --concurrency 16 typed too; --quiet alone does not', async () => {
    expect(await submit(['submit', 'event.json', '--concurrency', '16'])).toStrictEqual({ ...defaults, batch: true });
    expect(await submit(['submit', 'event.json', '--out', 'r.jsonl'])).toStrictEqual({
      ...defaults,
      batch: true,
      out: 'r.jsonl',
    });
    expect(await submit(['submit', 'event.json', '-q'])).toStrictEqual({ ...defaults, quiet: true });
    expect(
      await submit([
        'submit',
        '-',
        '--concurrency',
        '4',
        '--rate',
        '2.5',
        '--max-errors',
        '3',
        '--out',
        'o',
        '--rejects',
        'r',
        '--resume',
        '-q',
      ]),
    ).toStrictEqual({
      source: '-',
      batch: true,
      concurrency: 4,
      rate: 2.5,
      maxErrors: 3,
      out: 'o',
      rejects: 'r',
      resume: true,
      quiet: true,
      json: false,
      noColor: false,
    });
  });

  it('the global --json and --no-color, before the command or after it', async () => {
    expect(await submit(['--json', 'submit', 'event.json'])).toStrictEqual({ ...defaults, json: true });
    expect(await submit(['submit', 'event.json', '--no-color', '--json'])).toStrictEqual({
      ...defaults,
      json: true,
      noColor: true,
    });
  });

  it('--resume without --out is refused before any work', async () => {
    await expect(parse(submitCommand, ['submit', 'e.json', '--resume'])).rejects.toThrow(
      new UsageError('--resume needs --out: the results file of the run to continue'),
    );
  });
});

describe('set-state: argv → SetStateOptions, one or many, decided in the command', () => {
  const one = {
    ...{ form: 'one', eventId: 'ord-1', state: null, comments: null, dryRun: false, yes: false, forceState: false },
    ...{ verbose: false, appendComment: false, replaceComment: false, log: null, reason: null },
    ...{ includeClaimed: false, json: false, noColor: false },
  };
  const many = {
    ...{ form: 'many', ids: ['a', 'b'], from: null, state: 'declined', comments: null, commentMode: null },
    ...{ ifState: null, force: false, dryRun: false, yes: false, out: null, resume: false, concurrency: 8 },
    ...{ log: null, reason: null, includeClaimed: false, json: false },
  };

  it('one id: the one-event options, every flag bound once (a boolean, or null when not given)', async () => {
    expect(await parseRoom(setStateCommand, ['set-state', 'ord-1'])).toStrictEqual(one);
    const all = await parseRoom(setStateCommand, [
      ...['--json', '--no-color', 'set-state', 'ord-1', '--state', 'approved', '--comments', 'ok'],
      ...['--append-comment', '--dry-run', '--yes', '--force-state', '--verbose', '--log', 'team.log'],
      ...['--reason', 'stolen-card', '--include-claimed'],
    ]);
    expect(all).toStrictEqual({
      ...one,
      ...{ state: 'approved', comments: 'ok', dryRun: true, yes: true, forceState: true, verbose: true },
      ...{ appendComment: true, log: 'team.log', reason: 'stolen-card', includeClaimed: true },
      ...{ json: true, noColor: true },
    });
    const replace = await parseRoom(setStateCommand, ['set-state', 'ord-1', '--comments', 'x', '--replace-comment']);
    expect(replace).toStrictEqual({ ...one, comments: 'x', replaceComment: true });
  });

  it('two ids, or one with a many option (even --concurrency 8, the default, typed): many, concurrency 8 by default; --log alone stays one', async () => {
    expect(await parseRoom(setStateCommand, ['set-state', 'a', 'b', '--state', 'declined'])).toStrictEqual(many);
    expect(await parseRoom(setStateCommand, ['set-state', 'a b,c', '--state', 'declined'])).toStrictEqual({
      ...many,
      ids: ['a', 'b', 'c'],
    });
    expect(
      await parseRoom(setStateCommand, ['set-state', 'a', '--state', 'declined', '--log', 'team.log']),
    ).toStrictEqual({ ...one, eventId: 'a', state: 'declined', log: 'team.log' });
    expect(
      await parseRoom(setStateCommand, ['set-state', 'a', '--state', 'declined', '--concurrency', '8']),
    ).toStrictEqual({ ...many, ids: ['a'] });
    const from = await parseRoom(setStateCommand, [
      ...['--json', 'set-state', '--from', '-', '--state', 'x', '--comments', 'c', '--replace-comment'],
      ...['--if-state', 'review', '--force-state', '--yes', '--out', 'o.jsonl', '--resume', '--concurrency', '3'],
      ...['--log', 'team.log', '--reason', 'ring', '--include-claimed'],
    ]);
    expect(from).toStrictEqual({
      ...many,
      ...{ ids: [], from: '-', state: 'x', comments: 'c', commentMode: 'replace', ifState: 'review', force: true },
      ...{ yes: true, out: 'o.jsonl', resume: true, concurrency: 3, log: 'team.log', reason: 'ring' },
      ...{ includeClaimed: true, json: true },
    });
    expect(await parseRoom(setStateCommand, ['set-state', 'a', 'b', '--state', 's', '--dry-run'])).toStrictEqual({
      ...many,
      state: 's',
      dryRun: true,
    });
    // A --resume may leave --state out: the results file records it.
    expect(
      await parseRoom(setStateCommand, ['set-state', 'a', 'b', '--out', 'o', '--resume', '--append-comment']),
    ).toStrictEqual({ ...many, state: null, out: 'o', resume: true, commentMode: 'append' });
  });

  it('refuses the combinations before any work', async () => {
    const refused = async (argv: string[], message: RegExp) => {
      await expect(parse(setStateCommand, ['set-state', ...argv])).rejects.toThrow(message);
    };
    await refused([], /^set-state needs an event id, or --from FILE/);
    await refused(
      ['a', '--append-comment', '--replace-comment'],
      /^--append-comment and --replace-comment cannot be used together$/,
    );
    await refused(
      ['a', 'b', '--state', 's', '--append-comment', '--replace-comment'],
      /^--append-comment and --replace-comment: one or the other$/,
    );
    await refused(['a', 'b', '--state', 's', '--verbose'], /^--verbose is for one event/);
    await refused(['a', 'b', '--state', 's', '--resume'], /^--resume needs --out/);
    await refused(
      ['a', 'b', '--state', 's', '--dry-run', '--out', 'o'],
      /^--dry-run changes nothing and keeps no results file/,
    );
    await refused(['a', 'b'], /^set-state for many events needs --state$/);
    await refused(['a', 'b', '--state', 's', '--append-comment'], /^--append-comment goes with --comments$/);
  });
});

describe('show: argv → ShowOptions (one, a list, or a watch)', () => {
  const show = (argv: string[]) => parseRoom<ShowOptions>(showCommand, argv);
  const list = { form: 'list', from: null, format: 'table', concurrency: 8, noColor: false } as const;

  it('one id is the one-event form; --csv, --from or two ids a list with concurrency 8 by default', async () => {
    expect(await show(['show', 'ord-1'])).toStrictEqual({ form: 'one', eventId: 'ord-1', json: false, noColor: false });
    expect(await show(['--json', '--no-color', 'show', 'ord-1'])).toStrictEqual({
      form: 'one',
      eventId: 'ord-1',
      json: true,
      noColor: true,
    });
    expect(await show(['show', 'a', 'b'])).toStrictEqual({ ...list, ids: ['a', 'b'] });
    expect(await show(['--json', 'show', '--from', 'f', '--concurrency', '3'])).toStrictEqual({
      ...list,
      ids: [],
      from: 'f',
      format: 'json',
      concurrency: 3,
    });
    expect(await show(['--no-color', 'show', 'a', '--csv'])).toStrictEqual({
      ...list,
      ids: ['a'],
      format: 'csv',
      noColor: true,
    });
  });

  it('ids pasted as one argument ("ord-1, ord-2; ord-3") are that many ids: a list, not one malformed id', async () => {
    expect(await show(['show', 'ord-1, ord-2; ord-3'])).toStrictEqual({ ...list, ids: ['ord-1', 'ord-2', 'ord-3'] });
    // A separator around one id leaves one id: the one-event form.
    expect(await show(['show', ' "ord-1", '])).toStrictEqual({
      form: 'one',
      eventId: 'ord-1',
      json: false,
      noColor: false,
    });
    await expect(show(['show', ' , '])).rejects.toThrow(/^the event id is empty: it names no event/);
  });

  it('--watch: interval 5 by default, --until matched to a known state, --force-state as typed', async () => {
    const watch = { form: 'watch', eventId: 'a', json: false, noColor: false } as const;
    expect(await show(['show', 'a', '--watch'])).toStrictEqual({ ...watch, intervalSeconds: 5, until: null });
    expect(await show(['--json', 'show', 'a', '--watch', '--interval', '30', '--until', 'in-review'])).toStrictEqual({
      ...watch,
      json: true,
      intervalSeconds: 30,
      until: 'IN_REVIEW',
    });
    expect(await show(['show', 'a', '--watch', '--until', 'On_Hold', '--force-state'])).toStrictEqual({
      ...watch,
      intervalSeconds: 5,
      until: 'On_Hold',
    });
  });

  it('refuses the combinations, a typed default included', async () => {
    const refused = async (argv: string[], message: RegExp) => {
      await expect(parse(showCommand, argv)).rejects.toThrow(message);
    };
    await refused(['--json', 'show', 'a', '--csv'], /^--json and --csv cannot be combined/);
    await refused(['show'], /^show needs an event id, or --from FILE/);
    await refused(['show', 'a', 'b', '--watch'], /^--watch follows one event/);
    await refused(['show', 'a', '--watch', '--concurrency', '8'], /^--concurrency is for many ids, not --watch$/);
    await refused(['show', 'a', '--interval', '5'], /^--interval goes with --watch$/);
    await refused(['show', 'a', '--until', 'approved'], /^--until goes with --watch$/);
    await refused(['show', 'a', '--watch', '--force-state'], /^--force-state goes with --until$/);
    await refused(['show', 'a', '--watch', '--interval', '0.5'], /the interval is a number of seconds, at least 1/);
  });
});

describe('review: argv → ReviewOptions', () => {
  const defaults = {
    ids: [],
    from: null,
    allDecisions: false,
    claim: true,
    includeClaimed: false,
    includeDecided: false,
    log: null,
    sort: null,
    slaMs: null,
    allIds: false,
    noInput: false,
    noColor: false,
  };

  it('ids alone: claiming on, the order of the list, no SLA, no log', async () => {
    expect(await parseRoom(reviewCommand, ['review', 'a', 'b'])).toStrictEqual({ ...defaults, ids: ['a', 'b'] });
  });

  it('every flag bound to its own field, --sla in ms, the globals --no-input and --no-color', async () => {
    expect(
      await parseRoom(reviewCommand, [
        '--no-input',
        '--no-color',
        'review',
        '--from',
        'r.jsonl',
        '--all-decisions',
        '--no-claim',
        '--include-claimed',
        '--include-decided',
        '--log',
        'l',
        '--sort',
        'score',
        '--sla',
        '1d12h',
        '--all-ids',
      ]),
    ).toStrictEqual({
      ids: [],
      from: 'r.jsonl',
      allDecisions: true,
      claim: false,
      includeClaimed: true,
      includeDecided: true,
      log: 'l',
      sort: 'score',
      slaMs: 36 * 60 * 60 * 1000,
      allIds: true,
      noInput: true,
      noColor: true,
    });
  });

  it('a bad --sort or --sla, or an empty id, is refused before any work, saying what is wrong', async () => {
    const refused = (argv: string[]) => expect(parseRoom(reviewCommand, argv)).rejects;
    await refused(['review', '']).toThrow(UsageError);
    await refused(['review', 'a', '--sort', 'size']).toThrow(/^--sort "size" is not an order: use age, score, amount$/);
    await refused(['review', 'a', '--sla', '0h']).toThrow(/^--sla "0h" is not a duration: give whole days/);
  });
});

describe('alerts: one id', () => {
  it('asks the work for the id given, and the global --json', async () => {
    expect(await parse<[unknown]>(alertsCommand, ['alerts', 'ord-1'])).toStrictEqual([
      [{ eventId: 'ord-1', json: false, noColor: false }],
    ]);
    expect(await parse<[unknown]>(alertsCommand, ['--json', 'alerts', 'ord-1'])).toStrictEqual([
      [{ eventId: 'ord-1', json: true, noColor: false }],
    ]);
  });

  it('an empty id or none is refused before any work', async () => {
    await expect(parse(alertsCommand, ['alerts', ''])).rejects.toThrow(UsageError);
    await expect(parse(alertsCommand, ['alerts'])).rejects.toThrow(/missing required argument 'eventId'/);
  });
});

describe('log verify: argv → LogVerifyOptions', () => {
  const hash = 'AB'.repeat(32);

  it('the files in order; --expect in lower case; the global --json', async () => {
    expect(await parse<[unknown]>(logCommand, ['log', 'verify', 'a.log.1', 'a.log'])).toStrictEqual([
      [{ files: ['a.log.1', 'a.log'], expect: null, json: false, noColor: false }],
    ]);
    expect(await parse<[unknown]>(logCommand, ['--json', 'log', 'verify', 'a.log', '--expect', hash])).toStrictEqual([
      [{ files: ['a.log'], expect: 'ab'.repeat(32), json: true, noColor: false }],
    ]);
  });

  it('an --expect that is not a hash is refused before any work', async () => {
    await expect(parse(logCommand, ['log', 'verify', 'a.log', '--expect', 'abc'])).rejects.toThrow(
      new UsageError('--expect takes a line\'s hash, 64 hex digits, as log verify prints it (got "abc")'),
    );
  });
});

describe('history: argv → HistoryOptions', () => {
  it('the id, every --log file in order (several after one, or repeated), --include-unverified, --json', async () => {
    expect(await parse<[unknown]>(historyCommand, ['history', 'ord-1', '--log', 'a.log', 'b.log'])).toStrictEqual([
      [{ eventId: 'ord-1', logs: ['a.log', 'b.log'], includeUnverified: false, json: false, noColor: false }],
    ]);
    const argv = ['--json', 'history', 'ord-1', '--log', 'a.log', '--log', 'b.log', '--include-unverified'];
    expect(await parse<[unknown]>(historyCommand, argv)).toStrictEqual([
      [{ eventId: 'ord-1', logs: ['a.log', 'b.log'], includeUnverified: true, json: true, noColor: false }],
    ]);
  });

  it('an empty id, or no --log, is refused before any work', async () => {
    await expect(parse(historyCommand, ['history', '', '--log', 'a.log'])).rejects.toThrow(UsageError);
    await expect(parse(historyCommand, ['history', 'ord-1'])).rejects.toThrow(/required option '--log <files...>'/);
  });
});

describe('report: argv → ReportOptions', () => {
  it('--log alone: the defaults (concurrency 8, a read deadline of 300 s, a table)', async () => {
    expect(await parse<[unknown]>(reportCommand, ['report', '--log', 'a.log', 'b.log'])).toStrictEqual([
      [
        {
          files: ['a.log', 'b.log'],
          since: null,
          until: null,
          slaMs: null,
          format: 'table',
          concurrency: 8,
          includeUnverified: false,
          readDeadlineSeconds: 300,
          noColor: false,
        },
      ],
    ]);
  });

  it('every option bound once: a date alone as --until is through that day; --csv; the global --json', async () => {
    const argv = ['report', '--log', 'a.log', '--since', '2026-11-24', '--until', '2026-11-24', '--sla', '1d12h'];
    const more = ['--concurrency', '3', '--read-deadline', '60', '--include-unverified', '--csv'];
    expect(await parse<[unknown]>(reportCommand, [...argv, ...more])).toStrictEqual([
      [
        {
          files: ['a.log'],
          since: Date.parse('2026-11-24T00:00:00Z'),
          until: Date.parse('2026-11-25T00:00:00Z'),
          slaMs: 36 * 3_600_000,
          format: 'csv',
          concurrency: 3,
          includeUnverified: true,
          readDeadlineSeconds: 60,
          noColor: false,
        },
      ],
    ]);
    const [json] = await parseOne<[{ format: string }]>(reportCommand, ['--json', 'report', '--log', 'a.log']);
    expect(json.format).toBe('json');
  });

  it('--json with --csv, or a --since not before --until, is refused before any work', async () => {
    await expect(parse(reportCommand, ['--json', 'report', '--log', 'a', '--csv'])).rejects.toThrow(
      new UsageError('--json and --csv: one or the other'),
    );
    const argv = ['report', '--log', 'a', '--since', '2026-11-25', '--until', '2026-11-24'];
    await expect(parse(reportCommand, argv)).rejects.toMatchObject({
      exitCode: 2,
      message: '--since is not before --until: nothing could be counted',
      hint: 'give a --since earlier than --until',
    });
  });
});

describe('logout: argv → LogoutOptions', () => {
  it('the active profile, or the one --profile names', async () => {
    expect(await parseRoom(logoutCommand, ['logout'])).toStrictEqual({ profile: null });
    expect(await parseRoom(logoutCommand, ['--profile', 'prod', 'logout'])).toStrictEqual({ profile: 'prod' });
    expect(await parseRoom(logoutCommand, ['logout', '--profile', 'prod'])).toStrictEqual({ profile: 'prod' });
  });
});

describe('login: argv → LoginOptions', () => {
  it('the default profile, its own URL, the credential store', async () => {
    expect(await parseRoom(loginCommand, ['login'])).toStrictEqual({
      profile: null,
      baseUrl: null,
      insecureHttp: false,
      insecureStorage: false,
    });
  });

  it('the global flags that choose the profile and its service, and --insecure-storage', async () => {
    const argv = ['--profile', 'prod', 'login', '--base-url', 'http://10.0.0.5:8787', '--insecure-http'];
    expect(await parseRoom(loginCommand, [...argv, '--insecure-storage'])).toStrictEqual({
      profile: 'prod',
      baseUrl: 'http://10.0.0.5:8787',
      insecureHttp: true,
      insecureStorage: true,
    });
  });

  it('an empty --base-url is no URL given (the profile keeps its own)', async () => {
    expect(await parseRoom(loginCommand, ['login', '--base-url', ''])).toMatchObject({ baseUrl: null });
  });
});

describe('config: argv → ConfigOptions', () => {
  const globals = { profile: null, json: false, noColor: false };

  it('each verb and its arguments, with the global --profile, --json and --no-color', async () => {
    expect(await parseRoom(configCommand, ['config', 'list'])).toStrictEqual({ verb: 'list', ...globals });
    expect(await parseRoom(configCommand, ['--json', '--no-color', 'config', 'get', 'api-key'])).toStrictEqual({
      verb: 'get',
      key: 'api-key',
      profile: null,
      json: true,
      noColor: true,
    });
    expect(
      await parseRoom(configCommand, ['config', 'set', 'base-url', 'https://x.example', '--profile', 'p', '-y']),
    ).toStrictEqual({ verb: 'set', key: 'base-url', value: 'https://x.example', yes: true, ...globals, profile: 'p' });
    expect(await parseRoom(configCommand, ['config', 'set', 'timeout', '10'])).toStrictEqual({
      verb: 'set',
      key: 'timeout',
      value: '10',
      yes: false,
      ...globals,
    });
    expect(await parseRoom(configCommand, ['config', 'unset', 'retries'])).toStrictEqual({
      verb: 'unset',
      key: 'retries',
      ...globals,
    });
    expect(await parseRoom(configCommand, ['config', 'use', 'prod'])).toStrictEqual({
      verb: 'use',
      name: 'prod',
      ...globals,
    });
    expect(await parseRoom(configCommand, ['config', 'delete', 'old', '--yes'])).toStrictEqual({
      verb: 'delete',
      name: 'old',
      yes: true,
      ...globals,
    });
  });

  it('a key that is not a setting, and the API key as an argument, are refused before any work', async () => {
    await expect(parseRoom(configCommand, ['config', 'get', 'colour'])).rejects.toThrow(/Allowed choices are/);
    await expect(parseRoom(configCommand, ['config', 'set', 'api-key', 'abc123'])).rejects.toThrow(
      /run fraudctl login --profile NAME/,
    );
  });
});

describe('doctor: argv → DoctorOptions', () => {
  it('the global --json and --no-color; the flags choosing the settings reach it as its session', async () => {
    expect(await parseRoom(doctorCommand, ['doctor'])).toStrictEqual({ json: false, noColor: false });
    expect(await parseRoom(doctorCommand, ['--profile', 'p', 'doctor', '--json', '--no-color'])).toStrictEqual({
      json: true,
      noColor: true,
    });
  });
});

describe('sandbox: argv → SandboxOptions', () => {
  it("serve alone: loopback, port 8787, the data directory's file, the built-in config, no faults", async () => {
    expect(await parseRoom(sandboxCommand, ['sandbox', 'serve'])).toStrictEqual({
      verb: 'serve',
      host: '127.0.0.1',
      port: 8787,
      db: null,
      config: null,
      chaos: null,
      debug: false,
    });
  });

  it('every serve flag bound once, the global --debug too; default-config takes nothing', async () => {
    const argv = ['--debug', 'sandbox', 'serve', '--host', '0.0.0.0', '--port', '0', '--db', ':memory:'];
    expect(await parseRoom(sandboxCommand, [...argv, '--config', 'c.json', '--chaos', '503=0.1,seed=4'])).toStrictEqual(
      {
        verb: 'serve',
        host: '0.0.0.0',
        port: 0,
        db: ':memory:',
        config: 'c.json',
        chaos: '503=0.1,seed=4',
        debug: true,
      },
    );
    expect(await parseRoom(sandboxCommand, ['sandbox', 'default-config'])).toStrictEqual({ verb: 'default-config' });
  });

  it('a port that is not one is refused before any work', async () => {
    for (const port of ['http', '70000', '-1', '8.5'])
      await expect(parseRoom(sandboxCommand, ['sandbox', 'serve', '--port', port])).rejects.toThrow(
        /a port is a whole number from 0 to 65535/,
      );
  });
});

describe('completion and __complete: argv → CompletionOptions', () => {
  it('the shell; the profiles; the words with their leading colon taken off, one empty word for none', async () => {
    expect(await parseRoom(completionCommand, ['completion', 'zsh'])).toStrictEqual({ verb: 'script', shell: 'zsh' });
    expect(await parseRoom(completeCommand, ['__complete', 'profiles'])).toStrictEqual({ verb: 'profiles' });
    expect(await parseRoom(completeCommand, ['__complete', 'words', ':config', ':u'])).toStrictEqual({
      verb: 'words',
      words: ['config', 'u'],
    });
    expect(await parseRoom(completeCommand, ['__complete', 'words', ':--state', ':'])).toStrictEqual({
      verb: 'words',
      words: ['--state', ''],
    });
    expect(await parseRoom(completeCommand, ['__complete', 'words'])).toStrictEqual({ verb: 'words', words: [''] });
  });

  it('a shell it does not know, or a word without its colon, is refused before any work', async () => {
    await expect(parseRoom(completionCommand, ['completion', 'tcsh'])).rejects.toThrow(/Allowed choices are/);
    await expect(parseRoom(completeCommand, ['__complete', 'words', ':config', 'u'])).rejects.toThrow(
      new UsageError(`__complete words takes each word with a leading ':' (got "u")`),
    );
    await expect(parseRoom(completeCommand, ['__complete', 'values'])).rejects.toThrow(/Allowed choices are/);
  });
});

describe('help: argv → HelpOptions', () => {
  it('nothing: the root; a lone topic: that topic; other words: a command path, looked up by the run', async () => {
    expect(await parseRoom(helpCommand, ['help'])).toStrictEqual({ verb: 'root' });
    expect(await parseRoom(helpCommand, ['help', 'exit-codes'])).toStrictEqual({ verb: 'topic', topic: 'exit-codes' });
    expect(await parseRoom(helpCommand, ['help', 'config', 'set'])).toStrictEqual({
      verb: 'command',
      path: ['config', 'set'],
    });
    // A topic's name after another word is not a topic.
    expect(await parseRoom(helpCommand, ['help', 'exit-codes', 'x'])).toStrictEqual({
      verb: 'command',
      path: ['exit-codes', 'x'],
    });
  });
});
