/*
 * What `login` is asked to do, as one typed value: command.ts makes it from argv (the global
 * flags that choose the profile and its service, and its own --insecure-storage), run.ts does it.
 */
export interface LoginOptions {
  /** The global --profile; null: FRAUDCTL_PROFILE, else the config file's default profile. */
  profile: string | null;
  /** --base-url: the profile's URL to set (never FRAUDCTL_BASE_URL); null: the profile's own. */
  baseUrl: string | null;
  /** --insecure-http: plain http:// to a host that is not this machine, kept in the profile. */
  insecureHttp: boolean;
  /** --insecure-storage: keep the key in the config file even when a credential store is usable. */
  insecureStorage: boolean;
}
