import type { ForgottenKey } from '../../credentials/profile-keys.js';
import { unsetEnvCommand } from '../../render/shell-command.js';

/** What logout says, a line each: where the key was forgotten from, and a key the shell still sends. */
export function renderLogout(
  profile: string,
  forgotten: ForgottenKey,
  where: { storeName: string; configFile: string; keyInShell: boolean },
): string[] {
  const lines: string[] = [];
  if (forgotten.place === null) {
    lines.push(`profile "${profile}" has no stored key: nothing to do`);
  } else if (forgotten.place === 'credential-store') {
    const gone = forgotten.entryWasThere ? 'removed from' : 'its entry was already gone from';
    lines.push(`Logged out: profile "${profile}" has no key any more (${gone} ${where.storeName})`);
  } else {
    lines.push(`Logged out: profile "${profile}" has no key any more (removed from ${where.configFile})`);
  }
  if (where.keyInShell)
    lines.push(
      `note: FRAUDCTL_API_KEY is set in this shell, and commands here still send that key; to stop that too, run: ${unsetEnvCommand(['FRAUDCTL_API_KEY'])}`,
    );
  return lines;
}
