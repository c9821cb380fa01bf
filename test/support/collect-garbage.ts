import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/*
 * A full garbage collection, on demand, without starting the test process with --expose-gc:
 * the flag set at run time, and `gc` taken from a fresh context, where V8 then puts it.
 *
 * Why tests need it: libsql (0.5.29) closes a database's connection only once every statement
 * prepared on it has been collected (tursodatabase/libsql-js#228); until then the database file
 * stays open, which on Windows means it cannot be deleted (EBUSY/EPERM).
 */
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Collects twice, a turn of the event loop apart: native objects are let go in a second pass. */
export async function collectGarbage(): Promise<void> {
  gc();
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  await new Promise((resolve) => setImmediate(resolve));
}
