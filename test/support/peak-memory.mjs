/*
 * Preloaded into a fraudctl process under test (`NODE_OPTIONS=--import <this file>`, see
 * peakMemoryEnv in peak-memory.ts): when the process exits, its peak resident set size in KiB
 * (process.resourceUsage().maxRSS, the kernel's own high-water mark) goes to the file named by
 * FRAUDCTL_TEST_PEAK_FILE. No sampling, so no peak is missed between samples.
 */
import { writeFileSync } from 'node:fs';

const out = process.env.FRAUDCTL_TEST_PEAK_FILE;
if (out) process.on('exit', () => writeFileSync(out, String(process.resourceUsage().maxRSS)));
