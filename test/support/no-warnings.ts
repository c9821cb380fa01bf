import { afterAll } from 'vitest';

/*
 * Every test file runs with this set-up (vitest.config.ts): a Node warning or deprecation in the
 * test process fails the run, as an uncaught error does. Node 26 turned some deprecations (a
 * FileHandle left to the garbage collector) into crashes; here they fail on Node 20 too.
 *
 * Leaks that only show when the garbage collector runs are made to show in the file that
 * caused them: after the file's tests, a full collection (the workers run with --expose-gc),
 * then a turn of the event loop for what the collection reports.
 */

const INSTALLED = Symbol.for('fraudctl.test.no-warnings');
const registry = globalThis as unknown as Record<symbol, boolean>;
if (!registry[INSTALLED]) {
  registry[INSTALLED] = true;
  process.on('warning', (warning) => {
    // Thrown from the listener, it is an uncaught exception: vitest reports it and fails the run.
    throw new Error(`Node warning during the tests (a warning fails the suite): ${warning.name}: ${warning.message}`);
  });
}

afterAll(async () => {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('the test workers must run with --expose-gc (vitest.config.ts execArgv)');
  gc();
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setTimeout(resolve, 10));
});
