import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { drainedOrClosed } from '../../src/render/stream-pace.js';

/** A stream whose reader is slow: it takes a chunk only when `take()` is called. */
function slowStream() {
  const waiting: (() => void)[] = [];
  const stream = new Writable({
    highWaterMark: 4,
    write(_chunk, _encoding, callback) {
      waiting.push(callback);
    },
  });
  return { stream, take: () => waiting.splice(0).forEach((callback) => callback()) };
}

const listeners = (stream: Writable) => ({
  drain: stream.listenerCount('drain'),
  close: stream.listenerCount('close'),
  error: stream.listenerCount('error'),
});

describe('drainedOrClosed', () => {
  it('waits for the reader to take what was written, and leaves no listener behind however often it waits', async () => {
    const { stream, take } = slowStream();
    const before = listeners(stream);
    for (let i = 0; i < 20; i++) {
      expect(stream.write('12345')).toBe(false);
      let over = false;
      const waited = drainedOrClosed(stream).then(() => (over = true));
      await new Promise((resolve) => setImmediate(resolve));
      expect(over).toBe(false);
      take();
      await waited;
    }
    expect(listeners(stream)).toEqual(before);
  });

  it('ends when the stream closes instead (a reader gone), and when it fails, without throwing', async () => {
    const closing = slowStream();
    closing.stream.write('12345');
    const closed = drainedOrClosed(closing.stream);
    closing.stream.destroy();
    await expect(closed).resolves.toBeUndefined();

    const failing = slowStream();
    failing.stream.on('error', () => {});
    failing.stream.write('12345');
    const failed = drainedOrClosed(failing.stream);
    failing.stream.destroy(new Error('EIO'));
    await expect(failed).resolves.toBeUndefined();
  });
});
