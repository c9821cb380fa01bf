import { ExitCode, type ExitCodeValue } from './cli-error.js';

/*
 * The one table of what a service's answer means by its status — its kind (src/failures/
 * failure-kind.ts names all ten) and the exit code a command ending on it exits with — and the
 * one table of the exit codes, from which both `fraudctl --help` and `fraudctl help exit-codes`
 * are written (the statuses under each code come from the first table). Here, below the client
 * (src/api/) and src/failures/, so that both read it.
 */

/** The kinds a status alone can mean (a subset of FailureKind: the others need more than a status). */
export type StatusKind = 'auth' | 'not-found' | 'invalid' | 'refused' | 'throttled' | 'unavailable' | 'unknown-outcome';

/** What an `auth` answer refused: the key itself (401), or the merchant it belongs to (403). */
export type AuthRefusal = 'key' | 'merchant';

interface StatusMeaning {
  kind: StatusKind;
  /** For the kind `auth`: what was refused. */
  refused?: AuthRefusal;
  /** The kind when the call was a write (POST, PATCH), where it differs. */
  toWrite?: StatusKind;
  exitCode: ExitCodeValue;
}

const REJECTED: StatusMeaning = { kind: 'refused', exitCode: ExitCode.REJECTED };

/** Each status with a meaning of its own; any other is `otherStatus`'s. */
const STATUSES: ReadonlyMap<number, StatusMeaning> = new Map<number, StatusMeaning>([
  [400, { kind: 'invalid', exitCode: ExitCode.REJECTED }],
  [401, { kind: 'auth', refused: 'key', exitCode: ExitCode.AUTH }],
  [403, { kind: 'auth', refused: 'merchant', exitCode: ExitCode.AUTH }],
  [404, { kind: 'not-found', exitCode: ExitCode.NOT_FOUND }],
  // A request timeout: the server did not get the whole request in time, so nothing was
  // processed and the same request may go through later — transient, like a 503.
  [408, { kind: 'unavailable', exitCode: ExitCode.UNAVAILABLE }],
  [409, REJECTED],
  [413, REJECTED],
  [415, REJECTED],
  [422, { kind: 'invalid', exitCode: ExitCode.REJECTED }],
  [429, { kind: 'throttled', exitCode: ExitCode.UNAVAILABLE }],
  // A gateway's 502/504 to a write: the service may have acted on it before the answer was lost.
  [502, { kind: 'unavailable', toWrite: 'unknown-outcome', exitCode: ExitCode.UNAVAILABLE }],
  [503, { kind: 'unavailable', exitCode: ExitCode.UNAVAILABLE }],
  [504, { kind: 'unavailable', toWrite: 'unknown-outcome', exitCode: ExitCode.UNAVAILABLE }],
]);

/** Another 4xx: the service said no to this request; anything else (a 500…): it could not take it now. */
function otherStatus(status: number): StatusMeaning {
  return { kind: status >= 400 && status < 500 ? 'refused' : 'unavailable', exitCode: ExitCode.FAILURE };
}

/** What an answer of the service with this status means, to a read or to a write (`refused`: null unless `auth`). */
export function statusMeaning(
  status: number,
  write: boolean,
): { kind: StatusKind; refused: AuthRefusal | null; exitCode: ExitCodeValue } {
  const meaning = STATUSES.get(status) ?? otherStatus(status);
  const kind = (write ? meaning.toWrite : undefined) ?? meaning.kind;
  return { kind, refused: meaning.refused ?? null, exitCode: meaning.exitCode };
}

export function exitCodeForStatus(status: number): ExitCodeValue {
  return statusMeaning(status, false).exitCode;
}

/** The statuses with their own meaning that end in `code`, in order. */
function statusesOf(code: ExitCodeValue): number[] {
  return [...STATUSES].filter(([, meaning]) => meaning.exitCode === code).map(([status]) => status);
}

interface ExitCodeWords {
  code: number;
  /** What it means, in both texts; `{statuses}` stands for the statuses that end in it. */
  brief: string;
  /** What `help exit-codes` says more, right after `brief`. */
  more?: string;
}

const EXIT_CODES: readonly ExitCodeWords[] = [
  { code: ExitCode.OK, brief: 'ok' },
  {
    code: ExitCode.FAILURE,
    brief: 'other failure',
    more:
      ', including a bad answer: a 2xx whose body is not the JSON expected, an answer over 16 MiB, ' +
      "a 404 that is not the service's, a redirect not followed, a TLS certificate refused, a proxy asking " +
      'for credentials or refusing the service, a state changed by someone else (CONFLICT), an event held ' +
      'in a review session (CLAIMED)',
  },
  {
    code: ExitCode.USAGE,
    brief: 'usage: bad arguments, options, input file or configuration',
    more: '; missing input without a terminal; a results file that belongs to another run, or --resume without one',
  },
  {
    code: ExitCode.AUTH,
    brief: 'authentication or authorisation ({statuses})',
    more: ', or a credential store that cannot give the key',
  },
  { code: ExitCode.NOT_FOUND, brief: "not found ({statuses} in the service's own error shape)" },
  { code: ExitCode.REJECTED, brief: 'rejected by the service ({statuses})' },
  {
    code: ExitCode.UNAVAILABLE,
    brief:
      'unavailable, try again later ({statuses}, connection refused or dropped, DNS, timeout, ' +
      'the proxy down or unable to reach the service)',
  },
  {
    code: 129,
    brief: 'the terminal hung up (SIGHUP; on Windows, the console window closed): fraudctl finished as on Ctrl-C',
    more:
      ' (a batch records its lines in flight, review gives its claims back), then ended by SIGHUP (on ' +
      'Windows, exit 129, if done before Windows ends the process a few seconds later)',
  },
  {
    code: ExitCode.INTERRUPTED,
    brief: 'interrupted (Ctrl-C, Ctrl-Break on Windows, a cancelled prompt or confirmation)',
  },
  {
    code: 141,
    brief: "stdout's reader went away (fraudctl ... | head)",
    more: ': fraudctl stops at once and quietly, as a Unix tool ended by SIGPIPE does',
  },
  {
    code: 143,
    brief: 'terminated (SIGTERM: kill, systemd stopping a unit, timeout(1)): fraudctl finished as on Ctrl-C',
    more: ', then exited 143, as a process ended by SIGTERM does (not on Windows, where no SIGTERM comes from outside)',
  },
];

const WIDTH = 80;
const INDENT = 7;

/** `text` in lines of at most WIDTH columns, the first after the code, the others indented under it. */
function wrapped(code: number, text: string): string {
  const lines: string[] = [];
  let line = `  ${String(code).padEnd(INDENT - 2)}`;
  for (const word of text.split(' ')) {
    if (line.trim() !== String(code) && line.length + 1 + word.length > WIDTH) {
      lines.push(line);
      line = ' '.repeat(INDENT) + word;
    } else {
      line += line.endsWith(' ') ? word : ` ${word}`;
    }
  }
  lines.push(line);
  return lines.join('\n');
}

/**
 * The exit codes, one entry each: `brief` for `--help` (what each means), `full` for
 * `help exit-codes` (with what else ends in it). The statuses named come from the status table.
 */
export function exitCodeLines(form: 'brief' | 'full'): string {
  return EXIT_CODES.map(({ code, brief, more }) => {
    const said = brief.replace('{statuses}', statusesOf(code as ExitCodeValue).join('/'));
    return wrapped(code, form === 'full' && more !== undefined ? `${said}${more}` : said);
  }).join('\n');
}
