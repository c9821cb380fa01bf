import type { SavedKey } from '../../credentials/profile-keys.js';
import { redactKey } from '../../render/redact.js';
import { normalisedBaseUrl, sameServiceUrl } from '../../profiles/value-rules.js';
import { terminalSafe } from '../../render/terminal-text.js';
import { sym } from '../../render/symbols.js';

/** What a login that stood is said as: notes on where the key went (when not where asked), then the login itself. */
export function renderLoggedIn(
  saved: SavedKey,
  facts: {
    profile: string;
    key: string;
    configFile: string;
    storeName: string;
    insecureStorage: boolean;
    /** The profile's URL before this login, and the one it gave (--base-url). */
    ownUrl: string | undefined;
    newBaseUrl: string | undefined;
    /** The URL the key was checked at; undefined: the embedded sandbox. */
    baseUrl: string | undefined;
  },
): { storeNote: string[]; loggedIn: string } {
  const { profile, ownUrl, newBaseUrl, baseUrl } = facts;
  const file = `${facts.configFile} (mode 0600)`;
  const storeNote: string[] = [];
  if (saved.storeUnusable)
    storeNote.push(
      `note: no credential store is usable here (${saved.storeUnusable}): the key is kept in ${file} instead`,
    );
  if (saved.warning) storeNote.push(`warning: ${saved.warning}`);
  const where =
    saved.place === 'credential-store'
      ? facts.storeName
      : facts.insecureStorage
        ? `${file}, as --insecure-storage asks`
        : file;
  // A profile that moves is said as old → new.
  const moved =
    newBaseUrl !== undefined && ownUrl !== undefined && !sameServiceUrl(newBaseUrl, ownUrl)
      ? `${terminalSafe(normalisedBaseUrl(ownUrl))} ${sym.arrow} `
      : '';
  const service = baseUrl === undefined ? 'embedded sandbox' : terminalSafe(normalisedBaseUrl(baseUrl));
  return {
    storeNote,
    loggedIn: `Logged in: profile "${profile}" (${moved}${service}) now uses key ${redactKey(facts.key)}, saved in ${where}`,
  };
}
