import { homedir } from 'node:os';
import path from 'node:path';
import envPaths from 'env-paths';

/*
 * Where fraudctl keeps its files, read from the environment the caller passes (so tests and
 * commands never depend on the real one). XDG_CONFIG_HOME, XDG_DATA_HOME and XDG_CACHE_HOME,
 * when set to an absolute path, move them on every platform, as gh does: one way to put
 * fraudctl's files elsewhere (a second set of profiles, a test's temp directory) that works on
 * Linux, macOS and Windows alike. Unset: the XDG defaults under HOME on Linux and other Unixes,
 * the platform's own places on macOS and Windows (env-paths: ~/Library/…, %APPDATA%, %LOCALAPPDATA%).
 */

type Kind = 'config' | 'data' | 'cache';
const VARIABLE: Record<Kind, string> = { config: 'XDG_CONFIG_HOME', data: 'XDG_DATA_HOME', cache: 'XDG_CACHE_HOME' };
const UNDER_HOME: Record<Kind, string[]> = { config: ['.config'], data: ['.local', 'share'], cache: ['.cache'] };

/** Where fraudctl's files of one kind live on `platform` (process.platform unless a test says). */
export function fraudctlDir(kind: Kind, env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string {
  const paths = platform === 'win32' ? path.win32 : path.posix;
  const value = env[VARIABLE[kind]];
  // The XDG spec says a relative path is invalid and must be ignored.
  if (value && paths.isAbsolute(value)) return paths.join(value, 'fraudctl');
  if (platform === 'darwin' || platform === 'win32') return nativeDir(kind, platform);
  return paths.join(env.HOME || homedir(), ...UNDER_HOME[kind], 'fraudctl');
}

// env-paths reads the real platform and environment: only asked when they are the ones meant.
function nativeDir(kind: Kind, platform: NodeJS.Platform): string {
  if (platform !== process.platform)
    throw new Error(`no ${kind} directory for ${platform} on ${process.platform} without ${VARIABLE[kind]}`);
  return envPaths('fraudctl', { suffix: '' })[kind];
}

export const dataDir = (env: NodeJS.ProcessEnv): string => fraudctlDir('data', env);
export const configDir = (env: NodeJS.ProcessEnv): string => fraudctlDir('config', env);
export const defaultSandboxDb = (env: NodeJS.ProcessEnv): string => path.join(dataDir(env), 'sandbox.db');
/** Files fraudctl can lose without harm (the compile cache): XDG_CACHE_HOME, else ~/.cache. */
export const cacheDir = (env: NodeJS.ProcessEnv): string => fraudctlDir('cache', env);
