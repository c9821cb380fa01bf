// The `--markdown` mode every bench script has: the script's progress goes to stderr, and at the
// end stdout gets one section of docs/performance.md: the machine the run was made on (CPU model
// and count, Node version, OS, date, load average at its start), the parameters, and the table of
// figures with their ratios to the baseline measured in the same run.
// scripts/bench-docs.mjs runs the scripts this way and puts each section between its markers.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';

const loadAtStart = os.loadavg();
const startedAt = new Date();

/**
 * True when the script was run with `--markdown` (taken out of process.argv, so scripts reading
 * their arguments do not see it). From then on console.log writes to stderr: stdout is kept for
 * the section alone.
 */
export function markdownMode() {
  const index = process.argv.indexOf('--markdown');
  if (index === -1) return false;
  process.argv.splice(index, 1);
  console.log = (...args) => console.error(...args);
  return true;
}

const loads = (l) => l.map((x) => x.toFixed(2)).join(' ');

/** The OS in a line: the distribution's name where /etc/os-release gives it, the kernel, the architecture. */
function osName() {
  let distro = '';
  try {
    distro = /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(readFileSync('/etc/os-release', 'utf8'))?.[1] ?? '';
  } catch {
    // not Linux, or no os-release: the kernel alone says enough
  }
  return [distro, `${os.type()} ${os.release()}`, os.arch()].filter(Boolean).join(', ');
}

/** The commit the figures are for, and whether the tree had changes; null outside a git checkout. */
function commit() {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    const dirty =
      execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim() !== '';
    return dirty ? `${head} with uncommitted changes` : head;
  } catch {
    return null;
  }
}

/** The machine and the moment, as list lines; the load average at the end is read now. */
function machineLines() {
  const cpus = os.cpus();
  const model = cpus[0]?.model.trim() || 'unknown CPU';
  const at = commit();
  return [
    `- Machine: ${cpus.length} × ${model}; ${osName()}`,
    `- Node ${process.version}; ${startedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC${at ? `; commit ${at}` : ''}`,
    `- Load average (1, 5, 15 min) at the start ${loads(loadAtStart)}, at the end ${loads(os.loadavg())}`,
  ];
}

const cell = (value) =>
  String(value ?? '–')
    .replace(/\|/g, '\\|')
    .replace(/\n/g, ' ');

/** A Markdown table: a header row, the separator, one row per line (numbers right-aligned). */
export function table(header, rows, { align } = {}) {
  const alignment = align ?? header.map((_, i) => (i === 0 ? 'left' : 'right'));
  return [
    `| ${header.map(cell).join(' | ')} |`,
    `|${alignment.map((a) => (a === 'right' ? '---:' : '---')).join('|')}|`,
    ...rows.map((row) => `| ${row.map(cell).join(' | ')} |`),
  ].join('\n');
}

/**
 * Writes the section to stdout: `### title`, the machine, the parameters (`{ NAME: value }`, as
 * the environment variables that set them), then `blocks` (tables and lines), separated by blank lines.
 */
export function writeSection(title, parameters, blocks) {
  const params = Object.entries(parameters)
    .map(([name, value]) => `${name}=${value}`)
    .join(', ');
  const text = [
    `### ${title}`,
    [...machineLines(), `- Parameters: ${params || 'the defaults'}`].join('\n'),
    ...blocks.filter(Boolean),
  ].join('\n\n');
  process.stdout.write(`${text}\n`);
}

/** `met` or `NOT met`, for a target column. */
export const verdict = (ok) => (ok === null || ok === undefined ? 'not measured' : ok ? 'met' : 'NOT met');

/** A ratio with two decimals, or – when either side is missing. */
export const fmtRatio = (a, b) =>
  a === null || a === undefined || b === null || b === undefined || !b ? '–' : (a / b).toFixed(2);
