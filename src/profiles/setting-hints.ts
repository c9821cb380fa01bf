import type { SettingSource, SettingSources } from './settings.js';

/*
 * What to tell the user to change when the key or the service URL fails, by where that setting
 * came from. A flag is fixed on the command line; an environment variable wins over the config
 * file, so "log in again" or "config set" cannot help while it is set; a value from the config
 * file is changed with `login` or `config set`. Used by doctor and by the API client's errors
 * (the session hands the client these words), so both say the same.
 */

export interface SettingHints {
  /** The key was refused (401): what to change. */
  key: string;
  /** The URL was wrong (not the service, no such host, nothing listening): where to change it. */
  url: string;
}

/** What to do about a key the service refused, given where the key came from. */
export function keyHint(profile: string, source: SettingSources['apiKey']): string {
  if (source === 'env') return 'the key comes from FRAUDCTL_API_KEY, which wins over the profile\'s: fix its value, or unset FRAUDCTL_API_KEY to use the key stored by fraudctl login';
  if (source === null) return `log in: fraudctl login --profile ${profile} (or set FRAUDCTL_API_KEY)`;
  return `log in again: fraudctl login --profile ${profile} (or set FRAUDCTL_API_KEY)`;
}

/** Where the service URL in force is changed: follows "check the host name in …", "check …". */
export function urlHint(profile: string, source: SettingSource): string {
  if (source === 'env') return 'FRAUDCTL_BASE_URL, which wins over the profile\'s URL (fix it, or unset FRAUDCTL_BASE_URL)';
  if (source === 'file') return `the profile's URL (fraudctl config get base-url --profile ${profile}; change it with fraudctl config set base-url URL --profile ${profile})`;
  return '--base-url';
}

export function settingHints(profile: string, sources: Pick<SettingSources, 'apiKey' | 'baseUrl'>): SettingHints {
  return { key: keyHint(profile, sources.apiKey), url: urlHint(profile, sources.baseUrl) };
}
