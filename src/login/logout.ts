import type { Session } from '../session.js';
import { configFilePath, readConfigFile } from '../profiles/config-file.js';
import { listProfiles, unsetSetting } from '../profiles/config-commands.js';
import { ownProfile } from '../profiles/values.js';

/*
 * `fraudctl logout`: forget the key stored for a profile (the profile, its URL and its other
 * settings stay, so `fraudctl login --profile P` puts a key back). Nothing to forget is not an
 * error: logging out twice ends in the same place.
 */
export async function logout(session: Session): Promise<void> {
  const { context, globals } = session;
  const profile = globals.profile || context.env.FRAUDCTL_PROFILE || (listProfiles(context.env).find((p) => p.active)?.name ?? 'default');
  const stored = ownProfile(readConfigFile(context.env).profiles, profile);
  const output = await session.output();
  if (stored?.apiKey === undefined) {
    // unsetSetting also says "no profile" (exit 2) when the profile does not exist at all.
    unsetSetting(context.env, profile, 'api-key');
    output.note(`profile "${profile}" has no stored key: nothing to do`);
  } else {
    unsetSetting(context.env, profile, 'api-key');
    output.note(`Logged out: profile "${profile}" has no key any more (removed from ${configFilePath(context.env)})`);
  }
  if (context.env.FRAUDCTL_API_KEY) output.note('note: FRAUDCTL_API_KEY is set in this environment, and commands still use it; unset it too');
}
