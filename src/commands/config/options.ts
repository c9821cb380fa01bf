import type { ConfigKey, SettingKey } from '../../profiles/stored-profiles.js';

/*
 * What `config VERB` is asked to do, as one typed value: command.ts makes it from argv (a key
 * checked by commander's .choices()), run.ts does it.
 */

/** One verb and its arguments. */
export type ConfigVerb =
  | { verb: 'list' }
  | { verb: 'get'; key: ConfigKey }
  /** yes: a new base URL may move the profile's stored key without asking. */
  | { verb: 'set'; key: SettingKey; value: string; yes: boolean }
  | { verb: 'unset'; key: ConfigKey }
  | { verb: 'use'; name: string }
  | { verb: 'delete'; name: string; yes: boolean };

export type ConfigOptions = ConfigVerb & {
  /** The global --profile; null: FRAUDCTL_PROFILE, else the active profile. */
  profile: string | null;
  json: boolean;
  noColor: boolean;
};
