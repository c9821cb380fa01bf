import { configFilePath } from '../../profiles/config-file.js';
import { profileActedOn } from '../../profiles/settings.js';
import { forgetProfileKey } from '../../credentials/profile-keys.js';
import type { LogoutDeps } from './deps.js';
import type { LogoutOptions } from './options.js';
import { renderLogout } from './render.js';

/*
 * `fraudctl logout`: forget the key stored for a profile, from wherever it is kept (the
 * credential store or the config file; the profile, its URL and its other settings stay, so
 * `fraudctl login --profile P` puts a key back). Nothing to forget is not an error: logging out
 * twice ends in the same place.
 */
export async function run(options: LogoutOptions, deps: LogoutDeps): Promise<void> {
  const profile = profileActedOn(options.profile ?? undefined, deps.env, 'active');
  const forgotten = await forgetProfileKey(deps.env, profile, deps.credentialStore);
  const lines = renderLogout(profile, forgotten, {
    storeName: deps.storeName,
    configFile: configFilePath(deps.env),
    keyInShell: Boolean(deps.env.FRAUDCTL_API_KEY),
  });
  for (const line of lines) deps.stderr.write(`${line}\n`);
}
