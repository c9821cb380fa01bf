/** The types of secret-service.mjs (plain JavaScript, shared with bench:startup). */

export const KEYRING_PASSWORD: string;

export interface ToolResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** HOME, XDG_CONFIG_HOME, XDG_DATA_HOME, XDG_STATE_HOME, XDG_RUNTIME_DIR (and PATH) under one directory. */
export type HomeEnv = Record<'PATH' | 'HOME' | 'XDG_CONFIG_HOME' | 'XDG_DATA_HOME' | 'XDG_STATE_HOME' | 'XDG_RUNTIME_DIR', string>;

export interface SecretService {
  /** The home, with DBUS_SESSION_BUS_ADDRESS of the private bus. */
  env: HomeEnv & { DBUS_SESSION_BUS_ADDRESS: string };
  /** The same home without a bus: a session that cannot reach the store (an SSH login). */
  home: HomeEnv;
  secretTool(args: string[], input?: string): Promise<ToolResult>;
  /** Locks the login keyring (Secret Service Lock); it cannot be unlocked again without a prompt. */
  lock(): Promise<ToolResult>;
  stop(): Promise<void>;
}

export function privateHome(dir: string): HomeEnv;
export function startSecretService(dir: string): Promise<SecretService>;
