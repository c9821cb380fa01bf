import { homedir } from 'node:os';
import { join } from 'node:path';
import envPaths from 'env-paths';

/*
 * Where fraudctl keeps its files. On Linux and other Unixes: the XDG base directories, read
 * from the environment the caller passes (so tests and commands never depend on the real one).
 * On macOS and Windows: the platform's own places (env-paths).
 */

function xdg(env: NodeJS.ProcessEnv, variable: string, fallback: string[]): string {
  const value = env[variable];
  // The XDG spec says a relative path is invalid and must be ignored.
  if (value && value.startsWith('/')) return join(value, 'fraudctl');
  return join(env.HOME || homedir(), ...fallback, 'fraudctl');
}

const nativePaths = () => envPaths('fraudctl', { suffix: '' });
const usesXdg = process.platform !== 'darwin' && process.platform !== 'win32';

export const dataDir = (env: NodeJS.ProcessEnv): string => (usesXdg ? xdg(env, 'XDG_DATA_HOME', ['.local', 'share']) : nativePaths().data);
export const configDir = (env: NodeJS.ProcessEnv): string => (usesXdg ? xdg(env, 'XDG_CONFIG_HOME', ['.config']) : nativePaths().config);
export const defaultSandboxDb = (env: NodeJS.ProcessEnv): string => join(dataDir(env), 'sandbox.db');
/** Files fraudctl can lose without harm (the compile cache): XDG_CACHE_HOME, else ~/.cache. */
export const cacheDir = (env: NodeJS.ProcessEnv): string => (usesXdg ? xdg(env, 'XDG_CACHE_HOME', ['.cache']) : nativePaths().cache);
