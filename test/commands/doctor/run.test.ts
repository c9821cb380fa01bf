import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run } from '../../../src/commands/doctor/run.js';
import { doctorDeps } from '../../../src/commands/doctor/deps.js';
import type { CliContext } from '../../../src/process/cli-context.js';
import { writeConfigFile } from '../../../src/profiles/config-file.js';
import { credentialAccount } from '../../../src/profiles/value-rules.js';
import { Session } from '../../../src/session.js';
import { cliEnv } from '../../support/cli.js';
import { fakeCredentialStore, type FakeCredentialStore } from '../../support/fake-credential-store.js';
import { DEMO_KEY, startTestSandbox, tempDir, type TestSandbox } from '../../support/sandbox.js';

/*
 * doctor's work in-process: run(options, deps) against the real sandbox on an ephemeral port,
 * with the real deps (a session for the test's environment) whose credential store is the
 * test's own: the system's would be the desktop's keyring. The whole path from argv, and the
 * network's faults, are in doctor.test.ts.
 */

const tmp = tempDir('fraudctl-doctor-run-');
let sb: TestSandbox;
beforeAll(async () => {
  sb = await startTestSandbox();
});
afterAll(async () => {
  await sb.close();
  await tmp.remove();
});

/** A stream that keeps what is written to it. */
function sink(): PassThrough & { text: () => string } {
  const stream = new PassThrough() as PassThrough & { text: () => string };
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  stream.text = () => text;
  return stream;
}

/** doctor run with the real deps for `env` and the store given; its stdout, and what it threw. */
async function doctor(env: NodeJS.ProcessEnv, store: FakeCredentialStore = fakeCredentialStore(), json = false) {
  const stdout = sink();
  const context: CliContext = {
    stdin: new PassThrough(),
    stdout,
    stderr: sink(),
    env,
    debug: false,
    waitForShutdown: () => new Promise<NodeJS.Signals>(() => {}),
    onStdoutClosed: () => () => {},
  };
  const session = new Session(context, {}, undefined, store.open);
  let error: unknown = null;
  try {
    await run({ json, noColor: true }, { ...doctorDeps(context, session), storeName: 'the test keyring' });
  } catch (e) {
    error = e;
  } finally {
    await session.close();
  }
  return { stdout: stdout.text(), error };
}

const home = (extra: Record<string, string> = {}) =>
  cliEnv({ HOME: tmp.dir, XDG_CONFIG_HOME: `${tmp.dir}/config`, XDG_DATA_HOME: `${tmp.dir}/data`, ...extra });
const line = (stdout: string, title: string) =>
  stdout.split('\n').find((l) => new RegExp(`^. ${title}\\s{2,}`).test(l)) ?? '';

describe('doctor: run(options, deps)', () => {
  it('a served sandbox and a key from the shell: every check passes, the key redacted, nothing thrown', async () => {
    const { stdout, error } = await doctor(home({ FRAUDCTL_BASE_URL: sb.url, FRAUDCTL_API_KEY: DEMO_KEY }));
    expect(error).toBeNull();
    expect(line(stdout, 'service URL')).toMatch(new RegExp(`^✓ service URL +${sb.url} \\(from FRAUDCTL_BASE_URL\\)$`));
    expect(line(stdout, 'API key')).toMatch(
      new RegExp(`^✓ API key +\\*{4}${DEMO_KEY.slice(-4)} \\(from FRAUDCTL_API_KEY\\)$`),
    );
    expect(stdout).not.toContain(DEMO_KEY);
  });

  const keptIn = (env: NodeJS.ProcessEnv) =>
    writeConfigFile(env, {
      activeProfile: 'kept',
      profiles: {
        kept: { baseUrl: sb.url, credentialStore: { service: 'fraudctl', account: credentialAccount('kept', sb.url) } },
      },
    });

  it('a key in the credential store: read from it, sent, and named by the store it came from', async () => {
    const env = home({ FRAUDCTL_BASE_URL: '', FRAUDCTL_API_KEY: '' });
    keptIn(env);
    const store = fakeCredentialStore();
    store.entries.set(credentialAccount('kept', sb.url), DEMO_KEY);
    const { stdout, error } = await doctor(env, store, true);
    expect(error, stdout).toBeNull();
    const report = JSON.parse(stdout) as { ok: boolean; checks: { check: string; status: string; detail: string }[] };
    expect(report.ok).toBe(true);
    expect(report.checks.find((c) => c.check === 'api-key')).toStrictEqual({
      check: 'api-key',
      title: 'API key',
      status: 'pass',
      detail: `****${DEMO_KEY.slice(-4)} (from the test keyring)`,
    });
    expect(report.checks.find((c) => c.check === 'api-key-accepted')).toMatchObject({ status: 'pass' });
  });

  it('a store that cannot be used: ✗ API key with why and the way out, exit 1 naming it', async () => {
    const env = home({ FRAUDCTL_BASE_URL: '', FRAUDCTL_API_KEY: '' });
    keptIn(env);
    const { stdout, error } = await doctor(env, fakeCredentialStore({ unusable: 'no session bus' }));
    expect(line(stdout, 'API key')).toMatch(
      /^✗ API key +cannot read the API key of profile "kept" from .*: no session bus$/,
    );
    expect(stdout).toContain('→ set FRAUDCTL_API_KEY for this session');
    expect(error).toMatchObject({ exitCode: 1, message: expect.stringMatching(/^1 of \d+ checks failed: API key$/) });
  });
});
