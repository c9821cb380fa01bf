import { readFileSync } from 'node:fs';

/*
 * The peak memory of a fraudctl process under test: the environment that makes it write its
 * peak RSS when it exits (peak-memory.mjs), and the reading of it.
 */

// A file: URL, not a path: on Windows --import takes C:\… for a URL scheme (ERR_UNSUPPORTED_ESM_URL_SCHEME).
const PRELOAD = new URL('./peak-memory.mjs', import.meta.url).href;

export function peakMemoryEnv(file: string): Record<string, string> {
  return { NODE_OPTIONS: `--import ${PRELOAD}`, FRAUDCTL_TEST_PEAK_FILE: file };
}

/** The peak resident set size the process wrote, in bytes. */
export function peakRss(file: string): number {
  return Number(readFileSync(file, 'utf8')) * 1024;
}
