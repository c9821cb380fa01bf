import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Session } from '../src/session.js';

/*
 * The session makes one API client, at the first call that asks for it; what configures it (a
 * pool's connections, an abort signal) is given at that call. A later call with options would
 * have them dropped without a word: it is refused instead.
 */

function session(): Session {
  const context = {
    stdin: new PassThrough(),
    stdout: new PassThrough(),
    stderr: new PassThrough(),
    env: {},
    debug: false,
    waitForShutdown: () => new Promise<NodeJS.Signals>(() => {}),
    onStdoutClosed: () => () => {},
  };
  return new Session(context, {}, { profile: 'test', baseUrl: 'http://127.0.0.1:9', apiKey: 'test-key' });
}

describe('Session.client', () => {
  it('gives the same client to every call; options only at the first', async () => {
    const s = session();
    try {
      const abort = new AbortController();
      const client = await s.client({ signal: abort.signal });
      expect(await s.client()).toBe(client);
      await expect(s.client({ signal: abort.signal })).rejects.toThrow(/options are given at the first call only/);
    } finally {
      await s.close();
    }
  });
});
