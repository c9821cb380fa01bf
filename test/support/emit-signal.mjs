/*
 * Preloaded into a fraudctl process by a test (NODE_OPTIONS=--import=<this file's URL>): once
 * the process has written EMIT_SIGNAL_AFTER to stdout or stderr, it emits EMIT_SIGNAL on
 * `process`, as Node does when the system delivers that signal. For the signals a test cannot
 * send: Ctrl-Break (SIGBREAK) and a closed console window (SIGHUP) exist only on Windows, where
 * another process cannot send either (its kill is TerminateProcess). The product is unchanged;
 * only the moment and the name of the event come from the test (test/main.test.ts).
 */
const signal = process.env.EMIT_SIGNAL;
const after = process.env.EMIT_SIGNAL_AFTER;
delete process.env.EMIT_SIGNAL;
delete process.env.EMIT_SIGNAL_AFTER;
delete process.env.NODE_OPTIONS;

if (signal && after) {
  let seen = '';
  let emitted = false;
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write;
    stream.write = function (chunk, ...rest) {
      const written = write.call(this, chunk, ...rest);
      if (!emitted) {
        seen += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
        if (seen.includes(after)) {
          emitted = true;
          setImmediate(() => process.emit(signal, signal));
        }
      }
      return written;
    };
  }
}
