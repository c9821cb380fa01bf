import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import type { ConfigFile } from '../../src/profiles/config-file.js';

/*
 * A throwaway home for each test: XDG_CONFIG_HOME and HOME both point into a fresh temp
 * directory, in a plain env object. Nothing here touches the real home or process.env.
 */

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

export interface TempEnv {
  env: NodeJS.ProcessEnv;
  root: string;
  /** Where the config file lands: <root>/fraudctl/config.json. */
  configDir: string;
  configPath: string;
}

export function tempEnv(extra: NodeJS.ProcessEnv = {}): TempEnv {
  const root = mkdtempSync(join(tmpdir(), 'fraudctl-profiles-'));
  made.push(root);
  const configDir = join(root, 'fraudctl');
  return {
    env: { XDG_CONFIG_HOME: root, HOME: root, ...extra },
    root,
    configDir,
    configPath: join(configDir, 'config.json'),
  };
}

export function modeOf(path: string): number {
  return statSync(path).mode & 0o777;
}

/** The error a function throws (the test fails if it returns). */
export function thrown(fn: () => unknown): Error & { exitCode?: number; hint?: string } {
  try {
    fn();
  } catch (e) {
    return e as Error & { exitCode?: number; hint?: string };
  }
  throw new Error('expected an error, but the call returned');
}

/** A config of `count` profiles, each with a URL and a key in the file: about 165 bytes a profile. */
export function manyProfiles(count: number, tag: string): ConfigFile {
  const profiles: ConfigFile['profiles'] = {};
  for (let i = 0; i < count; i++)
    profiles[`profile-${i}`] = {
      baseUrl: `https://fraud-${i}.example.com`,
      apiKey: `${tag}-key-${String(i).padStart(4, '0')}-0123456789abcdef`,
      timeoutSeconds: 30,
      retries: 3,
    };
  return { activeProfile: 'profile-0', profiles };
}
