import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Session } from '../src/session.js';
import { tempDir } from './support/sandbox.js';

/*
 * The session makes one API client, at the first call that asks for it; what configures it (a
 * pool's connections, an abort signal) is given at that call. A later call with options would
 * have them dropped without a word: it is refused instead.
 */

function session(
  baseUrl: string | null = 'http://127.0.0.1:9',
  env: NodeJS.ProcessEnv = {},
  stderr = new PassThrough(),
): Session {
  const context = {
    stdin: new PassThrough(),
    stdout: new PassThrough(),
    stderr,
    env,
    debug: false,
    waitForShutdown: () => new Promise<NodeJS.Signals>(() => {}),
    onStdoutClosed: () => () => {},
  };
  return new Session(context, {}, { profile: 'test', baseUrl, apiKey: 'test-key' });
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

  it('calls that overlap before the first ends share one client and one embedded sandbox', async () => {
    const tmp = tempDir('fraudctl-session-');
    const stderr = new PassThrough();
    let said = '';
    stderr.on('data', (chunk: Buffer) => (said += chunk.toString()));
    const s = session(
      null,
      { HOME: tmp.dir, XDG_DATA_HOME: `${tmp.dir}/data`, XDG_CONFIG_HOME: `${tmp.dir}/config` },
      stderr,
    );
    try {
      const clients = await Promise.all([s.client(), s.client(), s.client()]);
      expect(new Set(clients).size).toBe(1);
      expect(said.match(/SANDBOX/g)).toHaveLength(1);
    } finally {
      await s.close();
      await tmp.remove();
    }
  });
});
