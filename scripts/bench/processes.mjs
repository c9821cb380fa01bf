// What the benchmark scripts share about the processes they start: a temp dir that goes, and
// children that die, however the script ends; an environment with nothing of the user's; a
// server started and its URL read; a run timed; and the peak memory and CPU time of a running
// child, read from /proc (Linux; null elsewhere).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';

/** USER_HZ of /proc/<pid>/stat: 100 on every common Linux build. */
const CLOCK_TICKS_PER_SECOND = 100;

const children = new Set();

/** Makes the script's temp dir (named from `prefix`) and removes it, and kills every tracked child, at exit or on SIGINT/SIGTERM. */
export function installCleanup(prefix) {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  process.on('exit', () => {
    for (const child of children) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });
  for (const signal of ['SIGINT', 'SIGTERM'])
    process.once(signal, () => process.exit(128 + os.constants.signals[signal]));
  return dir;
}

/** A child that installCleanup kills if it is still running when the script ends. */
export function track(child) {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

/** SIGTERM to a server the script started, then SIGKILL if it has not exited within `graceMs`; resolves once it has exited. */
export async function stopChild(child, graceMs = 10_000) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** An environment with nothing of the user's: PATH, and home and XDG dirs inside `dir`. */
export function isolatedEnv(dir, extra = {}) {
  const home = path.join(dir, 'home');
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, 'config'),
    XDG_DATA_HOME: path.join(home, 'data'),
    XDG_STATE_HOME: path.join(home, 'state'),
    XDG_CACHE_HOME: path.join(home, 'cache'),
    NO_COLOR: '1',
    ...extra,
  };
  for (const d of [env.HOME, env.XDG_CONFIG_HOME, env.XDG_DATA_HOME, env.XDG_STATE_HOME, env.XDG_CACHE_HOME])
    mkdirSync(d, { recursive: true });
  return env;
}

/** max(VmHWM, VmRSS) in kB from /proc/<pid>/status, or null (no /proc, or the process is gone). */
export function readPeakRssKb(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
    const peak = Math.max(kb('VmHWM'), kb('VmRSS'));
    return peak > 0 ? peak : null;
  } catch {
    return null;
  }
}

/**
 * CPU time (user + system) used so far, from /proc/<pid>/stat, or null. Polled, so it misses at
 * most the last poll interval: enough to see what the client costs the machine.
 */
export function readCpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after "(comm)", which may itself hold spaces: state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? ticks / CLOCK_TICKS_PER_SECOND : null;
  } catch {
    return null;
  }
}

export const fmtInt = (n) =>
  n === null || n === undefined || Number.isNaN(n) ? '–' : Math.round(n).toLocaleString('en-US');
export const fmtMb = (kb) => (kb === null || kb === undefined ? 'n/a' : `${(kb / 1024).toFixed(1)} MB`);

/**
 * Spawns `node <args>` (tracked) and resolves with `{ name, child, url }` once it prints
 * `… listening on http://…` on stdout; rejects, naming it and with its stderr, if it exits first
 * or has not printed its URL within `timeoutMs`.
 */
export async function startListening(name, args, { env, cwd, timeoutMs = 15_000 }) {
  const child = track(spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] }));
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk) => {
    stderr += chunk;
  });
  const url = await new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    const done = (error, value) => {
      clearTimeout(timer);
      child.off('exit', onExit);
      lines.off('line', onLine);
      if (error) reject(new Error(`${name} ${error}${stderr ? `\n${stderr.trimEnd()}` : ''}`));
      else resolve(value);
    };
    const onExit = (code, signal) => done(`exited (${signal ?? `code ${code}`}) before listening`);
    const onLine = (line) => {
      const match = /listening on (http:\/\/\S+)/.exec(line);
      if (match) done(null, match[1]);
    };
    const timer = setTimeout(() => done(`did not print its URL within ${timeoutMs / 1000} s`), timeoutMs);
    child.once('exit', onExit);
    lines.on('line', onLine);
  });
  child.stdout.resume();
  return { name, child, url };
}

/** VmRSS in kB now (not the peak), or null. */
function currentRssKb(pid) {
  try {
    return Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) || null;
  } catch {
    return null;
  }
}

/**
 * Runs `node <args>` (tracked) with stdout to `outFile`, timing it wall clock and polling every
 * 100 ms its peak RSS, its CPU time and, as `samples` ({ at: ms since start, kb }), its RSS then;
 * killed after `timeoutMs` (`timedOut`).
 */
export async function runTimed(args, { env, cwd, outFile, timeoutMs }) {
  const out = createWriteStream(outFile);
  await once(out, 'open');
  const started = performance.now();
  const child = track(spawn(process.execPath, args, { cwd, env, stdio: ['ignore', out, 'pipe'] }));
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
  let peakKb = null;
  let cpuSeconds = null;
  const samples = [];
  const poller = setInterval(() => {
    const kb = readPeakRssKb(child.pid);
    if (kb !== null) peakKb = Math.max(peakKb ?? 0, kb);
    const now = currentRssKb(child.pid);
    if (now !== null) samples.push({ at: performance.now() - started, kb: now });
    cpuSeconds = readCpuSeconds(child.pid) ?? cpuSeconds;
  }, 100);
  let timedOut = false;
  const killer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, timeoutMs);
  try {
    const [code, signal] = await once(child, 'close');
    return {
      code,
      signal,
      stderr,
      seconds: (performance.now() - started) / 1000,
      peakKb,
      cpuSeconds,
      samples,
      timedOut,
    };
  } finally {
    clearInterval(poller);
    clearTimeout(killer);
    out.close();
  }
}
