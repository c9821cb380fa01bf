import { join } from 'node:path';
import envPaths from 'env-paths';

/*
 * Where fraudctl keeps its files: XDG directories on Linux (XDG_DATA_HOME, XDG_CONFIG_HOME
 * respected), the platform's own elsewhere (env-paths).
 */
const paths = () => envPaths('fraudctl', { suffix: '' });

export const dataDir = (): string => paths().data;
export const configDir = (): string => paths().config;
export const defaultSandboxDb = (): string => join(dataDir(), 'sandbox.db');
