/** The types of secret-service.mjs (plain JavaScript, shared with bench:startup). */

export const KEYRING_PASSWORD: string;

export interface ToolResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** HOME, XDG_CONFIG_HOME, XDG_DATA_HOME, XDG_STATE_HOME, XDG_RUNTIME_DIR (and PATH) under one directory. */
export type HomeEnv = Record<
  'PATH' | 'HOME' | 'XDG_CONFIG_HOME' | 'XDG_DATA_HOME' | 'XDG_STATE_HOME' | 'XDG_RUNTIME_DIR',
  string
>;

export interface SecretService {
  /** The home, with DBUS_SESSION_BUS_ADDRESS of the private bus. */
  env: HomeEnv & { DBUS_SESSION_BUS_ADDRESS: string };
  /** The same home without a bus: a session that cannot reach the store (an SSH login). */
  home: HomeEnv;
  secretTool(args: string[], input?: string): Promise<ToolResult>;
  /** Locks the login keyring (Secret Service Lock); it cannot be unlocked again without a prompt. */
  lock(): Promise<ToolResult>;
  /** The pid of gnome-keyring-daemon (to stop and continue it: a keyring that hangs). */
  keyringPid(): Promise<number>;
  /** Whether a process owns `name` on the private bus (org.gnome.keyring.SystemPrompter: a prompt was asked for). */
  hasOwner(name: string): Promise<boolean>;
  stop(): Promise<void>;
}

export function privateHome(dir: string): HomeEnv;
/** `display`: an X display where the keyring can show its unlock prompt. */
export function startSecretService(dir: string, options?: { display?: string }): Promise<SecretService>;
