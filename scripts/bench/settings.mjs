// The benchmarks' settings from the environment (BENCH_*): a bad value ends the script at once
// with one line saying what it must be, exit 2.

/** The whole number in env `name`, from 1 to `max`; `fallback` when unset or empty. */
export function positiveIntFromEnv(name, fallback, max = Number.MAX_SAFE_INTEGER) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > max) {
    console.error(`${name} must be a whole number from 1 to ${max}, not "${raw}"`);
    process.exit(2);
  }
  return n;
}
