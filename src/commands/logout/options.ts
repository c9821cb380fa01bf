/*
 * What `logout` is asked to do, as one typed value: command.ts makes it from argv, run.ts does it.
 */
export interface LogoutOptions {
  /** The global --profile; null: the active profile (FRAUDCTL_PROFILE, then the config file's). */
  profile: string | null;
}
