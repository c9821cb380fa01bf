import { spawn } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BIN, cliEnv, nodeWarnings } from './cli.js';

/*
 * The fraudctl command lines a Markdown page shows, and a run of them as a newcomer would type
 * them: in the page's order, in one fresh HOME, from a directory holding the checkout's
 * examples/. Only ```sh, ```bash and ```console blocks hold commands; in a block with prompts
 * (`$ `) only the prompted lines are commands (the rest is output), in one without every line
 * is. A line is a fraudctl line when fraudctl is a command of it (`fraudctl …`, `npx fraudctl
 * …`, after `|`, `&&`, `$(`, `<(` or a variable assignment); `npx fraudctl` runs as `fraudctl`,
 * which the README says it is after the set-up (npx's own start would cost a second a line).
 * Lines that are not fraudctl lines (`cat`, `curl`, `$EDITOR`) are not run.
 *
 * What cannot run here is marked in the Markdown, in an HTML comment on the lines just above the
 * block, with its reason:
 *   <!-- not run: REASON -->               no line of the block runs
 *   <!-- not run "TEXT": REASON -->        the block's lines containing TEXT (comment included) do not run
 *   <!-- exit N "TEXT": REASON -->         those lines end with exit code N, on purpose
 * A `PS> ` line (PowerShell) and a ```powershell block never run. A marker that matches no
 * line is an error, so that none outlives the line it was for.
 */

export interface CommandLine {
  /** 1-based line in the page. */
  line: number;
  /** The command as written, prompt and trailing comment off. */
  command: string;
  /** Why it does not run (null: it runs). */
  skip: string | null;
  /** The exit code it is expected to end with. */
  exit: number;
}

export interface PageLines {
  lines: CommandLine[];
  /** Markers that matched no line: each one an error. */
  stale: string[];
}

const SHELL_BLOCKS = ['sh', 'bash', 'console'];
const FRAUDCTL = /(?:^|[|;&(]\s*|<\(\s*|\$\(\s*|^(?:[A-Z_]+=(?:\$\([^)]*\)|\S+)\s+)+)(?:npx\s+)?fraudctl(?:\s|$)/;
const MARKER = /^<!--\s*(not run|exit (\d+))(?:\s+"([^"]+)")?:\s*(.+?)\s*-->$/;

interface Marker {
  kind: 'skip' | 'exit';
  exit: number;
  text: string | null;
  reason: string;
  source: string;
  used: boolean;
}

/** The command without a trailing `# comment` (a `#` after a space, outside quotes). */
export function withoutComment(command: string): string {
  let quote: string | null = null;
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(command[i - 1]!))) return command.slice(0, i).trimEnd();
  }
  return command.trimEnd();
}

export function commandLines(markdown: string): PageLines {
  const lines: CommandLine[] = [];
  const stale: string[] = [];
  const text = markdown.split('\n');
  let pending: Marker[] = [];
  for (let i = 0; i < text.length; i++) {
    const raw = text[i]!;
    const marker = MARKER.exec(raw.trim());
    if (marker) {
      pending.push({
        kind: marker[1] === 'not run' ? 'skip' : 'exit',
        exit: Number(marker[2] ?? 0),
        text: marker[3] ?? null,
        reason: marker[4]!,
        source: `line ${i + 1}: ${raw.trim()}`,
        used: false,
      });
      continue;
    }
    const fence = /^\s*```(\S*)/.exec(raw);
    if (!fence) {
      if (raw.trim() !== '') pending = [];
      continue;
    }
    const language = fence[1]!;
    const start = i;
    const body: { n: number; text: string }[] = [];
    for (i++; i < text.length && !/^\s*```\s*$/.test(text[i]!); i++) body.push({ n: i + 1, text: text[i]! });
    const markers = pending;
    pending = [];
    const prompted = body.some((l) => /^\s*(\$|PS>) /.test(l.text));
    for (const { n, text: line } of body) {
      const trimmed = line.trim();
      let command: string;
      let fixedSkip: string | null = null;
      if (language === 'powershell') {
        command = trimmed.replace(/^PS> /, '');
        fixedSkip = 'PowerShell';
      } else if (!SHELL_BLOCKS.includes(language)) continue;
      else if (trimmed.startsWith('PS> ')) {
        command = trimmed.slice(4);
        fixedSkip = 'PowerShell (a PS> line)';
      } else if (prompted) {
        if (!trimmed.startsWith('$ ')) continue;
        command = trimmed.slice(2);
      } else command = trimmed;
      const written = command;
      command = withoutComment(command);
      if (!FRAUDCTL.test(command)) continue;
      const entry: CommandLine = { line: n, command, skip: fixedSkip, exit: 0 };
      for (const m of markers) {
        if (m.text !== null && !written.includes(m.text)) continue;
        m.used = true;
        if (m.kind === 'skip') entry.skip ??= m.reason;
        else entry.exit = m.exit;
      }
      lines.push(entry);
    }
    for (const m of markers.filter((marker) => !marker.used)) {
      stale.push(`${m.source} (above the block at line ${start + 1}) matches no fraudctl line`);
    }
  }
  return { lines, stale };
}

export interface LineFailure {
  line: number;
  command: string;
  message: string;
}

const CHECKOUT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * A fresh HOME in `dir`, `fraudctl` on its PATH (the built CLI, as `npm link` gives it), and a
 * working directory holding a copy of examples/ (so files the lines write stay in `dir`).
 */
export function freshHome(dir: string): { env: NodeJS.ProcessEnv; cwd: string } {
  const home = join(dir, 'home');
  const bin = join(dir, 'bin');
  const cwd = join(dir, 'work');
  mkdirSync(home, { recursive: true });
  mkdirSync(bin, { recursive: true });
  cpSync(join(CHECKOUT, 'examples'), join(cwd, 'examples'), { recursive: true });
  writeFileSync(join(bin, 'fraudctl'), `#!/bin/sh\nexec '${process.execPath}' '${BIN}' "$@"\n`);
  chmodSync(join(bin, 'fraudctl'), 0o755);
  return { env: cliEnv({ HOME: home, PATH: `${bin}:${process.env.PATH}` }), cwd };
}

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  output: string;
}

/**
 * `sandbox serve` runs until Ctrl-C: it has run as written once it listens and then ends on
 * Ctrl-C (SIGINT to its process group, as a terminal sends it) without an error.
 */
const SERVE = /(?:^|\s)fraudctl\s+sandbox\s+serve(?:\s|$)/;

function runLine(command: string, env: NodeJS.ProcessEnv, cwd: string, timeoutMs: number): Promise<Ended> {
  const serve = SERVE.test(command);
  // An ephemeral port, so that runs side by side (and a developer's own sandbox) never collide.
  const script = serve && !/--port\b/.test(command) ? `${command} --port 0` : command;
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-o', 'pipefail', '-c', script], { cwd, env, detached: true });
    let output = '';
    let stopping = false;
    const stop = (signal: NodeJS.Signals) => {
      try {
        process.kill(-child.pid!, signal);
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      output += `\n[still running after ${timeoutMs / 1000} s: killed]`;
      stop('SIGKILL');
    }, timeoutMs);
    const collect = (d: Buffer) => {
      output += d.toString();
      if (serve && !stopping && output.includes('Press Ctrl-C to stop.')) {
        stopping = true;
        stop('SIGINT');
      }
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (serve && !stopping) output += '\n[ended before it listened]';
      if (serve && stopping) resolve({ code: signal === 'SIGINT' || code === 130 ? 0 : code, signal: null, output });
      else resolve({ code: serve ? (code === 0 ? 1 : code) : code, signal, output });
    });
    child.stdin.on('error', () => {});
    child.stdin.end();
  });
}

/** Runs the lines that run, in order, each to its end; returns the ones that ended otherwise than expected. */
export async function runCommandLines(
  lines: CommandLine[],
  home: { env: NodeJS.ProcessEnv; cwd: string },
  timeoutMs = 15_000,
): Promise<LineFailure[]> {
  const failures: LineFailure[] = [];
  for (const line of lines.filter((l) => l.skip === null)) {
    const command = line.command.replace(/(^|[\s|;&(])npx fraudctl\b/g, '$1fraudctl');
    const ended = await runLine(command, home.env, home.cwd, timeoutMs);
    const warnings = nodeWarnings(ended.output);
    if (ended.code !== line.exit || warnings.length > 0) {
      const how = ended.signal ? `ended by ${ended.signal}` : `exit ${ended.code}`;
      const expected = line.exit === 0 ? '' : ` (expected ${line.exit})`;
      const message = `${how}${expected}:\n${ended.output.trimEnd()}`;
      failures.push({ line: line.line, command: line.command, message });
    }
  }
  return failures;
}
