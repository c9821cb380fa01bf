import type { Session } from '../session.js';
import { configFilePath } from '../profiles/config-file.js';
import { profileActedOn } from '../profiles/settings.js';
import { credentialStoreName } from '../credentials/credential-store.js';
import { forgetProfileKey } from '../credentials/profile-keys.js';
import { unsetEnvCommand } from '../render/shell-command.js';

/*
 * `fraudctl logout`: forget the key stored for a profile, from wherever it is kept (the
 * credential store or the config file; the profile, its URL and its other settings stay, so
 * `fraudctl login --profile P` puts a key back). Nothing to forget is not an error: logging out
 * twice ends in the same place.
 */
export async function logout(session: Session): Promise<void> {
  const { context, globals } = session;
  const profile = profileActedOn(globals.profile, context.env, 'active');
  const forgotten = await forgetProfileKey(context.env, profile);
  const output = await session.output();
  if (forgotten.place === null) {
    output.note(`profile "${profile}" has no stored key: nothing to do`);
  } else if (forgotten.place === 'credential-store') {
    const gone = forgotten.entryWasThere ? 'removed from' : 'its entry was already gone from';
    output.note(`Logged out: profile "${profile}" has no key any more (${gone} ${credentialStoreName()})`);
  } else {
    output.note(`Logged out: profile "${profile}" has no key any more (removed from ${configFilePath(context.env)})`);
  }
  if (context.env.FRAUDCTL_API_KEY)
    output.note(
      `note: FRAUDCTL_API_KEY is set in this shell, and commands here still send that key; to stop that too, run: ${unsetEnvCommand(['FRAUDCTL_API_KEY'])}`,
    );
}
