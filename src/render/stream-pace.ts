import { once } from 'node:events';

/*
 * The pace of a long output (a list of many events, a batch's result lines): after a write the
 * stream did not take at once (write returned false: its reader is slower than we are), the next
 * waits until the stream has drained or closed. A closed stdout (`| head`) and a stream error are
 * main.ts's to handle, so either only ends the wait. The listener that did not fire is removed:
 * left behind, each wait would add one, and the eleventh is a MaxListenersExceededWarning.
 */

/** Resolves once `stream` emits 'drain' or 'close' (or fails); never rejects. */
export async function drainedOrClosed(stream: NodeJS.WritableStream): Promise<void> {
  const done = new AbortController();
  try {
    await Promise.race([
      once(stream, 'drain', { signal: done.signal }),
      once(stream, 'close', { signal: done.signal }),
    ]);
  } catch {
    // An error on the stream: main.ts says it (watchOutputStreams); the writer only stops waiting.
  } finally {
    done.abort();
  }
}
