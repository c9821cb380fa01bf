import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliEnv, runCli } from '../support/cli.js';
import { tempDir } from '../support/sandbox.js';
import { afterAll } from 'vitest';

/*
 * Issue 11 item 4: concurrent `config set` processes each keep their change (the file is
 * changed under a lock), where the last write used to win. Ten pairs, each pair started at
 * once, so that a lost update cannot hide behind lucky timing.
 */

const tmp = tempDir('fraudctl-config-race-');
afterAll(() => tmp.remove());
const env = cliEnv({ HOME: tmp.dir, XDG_CONFIG_HOME: join(tmp.dir, 'config') });

describe('two config set processes at once', () => {
  it('both values end up in the file, for each of ten pairs', async () => {
    for (let i = 0; i < 10; i++) {
      // The profile is made first: only a base-url creates one (a timeout for a new name is refused as a typo).
      expect((await runCli(['config', 'set', 'base-url', `https://race-${i}.example.com`, '--profile', `race-${i}`], { env })).code).toBe(0);
      const [a, b] = await Promise.all([
        runCli(['config', 'set', 'timeout', String(10 + i), '--profile', `race-${i}`], { env }),
        runCli(['config', 'set', 'retries', String(i % 5), '--profile', `race-${i}`], { env }),
      ]);
      expect(a.code, a.stderr).toBe(0);
      expect(b.code, b.stderr).toBe(0);
    }
    const file = JSON.parse(readFileSync(join(tmp.dir, 'config', 'fraudctl', 'config.json'), 'utf8')) as { profiles: Record<string, unknown> };
    for (let i = 0; i < 10; i++) expect(file.profiles[`race-${i}`]).toEqual({ baseUrl: `https://race-${i}.example.com`, timeoutSeconds: 10 + i, retries: i % 5 });
  }, 60_000);
});
