import { envValue, type SettingSource, type SettingSources } from './settings.js';
import { quote, sameServiceUrl, showUrl } from './value-rules.js';
import { shellCommand, unsetEnvCommand } from '../render/shell-command.js';

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

/** What to do about a key the service refused, given where the key (and the URL) came from. */
export function keyHint(profile: string, source: SettingSources['apiKey'], urlSource?: SettingSource): string {
  if (source === 'env' && urlSource === 'env') {
    return `the key comes from FRAUDCTL_API_KEY and the URL from FRAUDCTL_BASE_URL, which win over the profile's: check that the key is for that URL, or use the profile's own: ${unsetEnvCommand(['FRAUDCTL_API_KEY', 'FRAUDCTL_BASE_URL'])}`;
  }
  if (source === 'env')
    return `the key comes from FRAUDCTL_API_KEY, which wins over the profile's: fix its value, or use the key stored by fraudctl login: ${unsetEnvCommand(['FRAUDCTL_API_KEY'])}`;
  const login = shellCommand(['fraudctl', 'login', '--profile', profile]);
  if (source === null) return `log in: ${login} (or set FRAUDCTL_API_KEY)`;
  return `log in again: ${login} (or set FRAUDCTL_API_KEY)`;
}

/** Where the service URL in force is changed: follows "check the host name in …", "check …". */
export function urlHint(profile: string, source: SettingSource): string {
  if (source === 'env')
    return `FRAUDCTL_BASE_URL, which wins over the profile's URL (fix it, or remove it: ${unsetEnvCommand(['FRAUDCTL_BASE_URL'])})`;
  if (source === 'file')
    return `the profile's URL (${shellCommand(['fraudctl', 'config', 'get', 'base-url', '--profile', profile])}; change it with ${shellCommand(['fraudctl', 'config', 'set', 'base-url', 'URL', '--profile', profile])})`;
  return '--base-url';
}

export function settingHints(profile: string, sources: Pick<SettingSources, 'apiKey' | 'baseUrl'>): SettingHints {
  return { key: keyHint(profile, sources.apiKey, sources.baseUrl), url: urlHint(profile, sources.baseUrl) };
}

/** What a config command just made the configuration say, for shellOverrides. */
export interface JustSet {
  /** The profile that was made the one to use (`config use`, a login). */
  profile?: string;
  /** The service URL a profile now has (null: the embedded sandbox). */
  baseUrl?: string | null;
  /** A profile's key was stored or forgotten. */
  apiKey?: boolean;
}

/**
 * One line saying which variables of this shell win over what was just set (and so make it
 * have no effect here), and the command that unsets them; undefined when none does. A variable
 * equal to what was set changes nothing and is not named. The key's value is never shown.
 */
export function shellOverrides(env: NodeJS.ProcessEnv, set: JustSet): string | undefined {
  const says: string[] = [];
  const names: string[] = [];
  const profile = envValue(env, 'FRAUDCTL_PROFILE');
  if (set.profile !== undefined && profile !== undefined && profile !== set.profile) {
    says.push(
      `FRAUDCTL_PROFILE is set to ${quote(profile)} in this shell and wins over the active profile: commands here use profile ${quote(profile)}, not ${quote(set.profile)}`,
    );
    names.push('FRAUDCTL_PROFILE');
  }
  const url = envValue(env, 'FRAUDCTL_BASE_URL');
  if (set.baseUrl !== undefined && url !== undefined && (set.baseUrl === null || !sameServiceUrl(url, set.baseUrl))) {
    says.push(
      `FRAUDCTL_BASE_URL is set to ${showUrl(url)} in this shell and wins over the profile's URL: commands here go there`,
    );
    names.push('FRAUDCTL_BASE_URL');
  }
  if (set.apiKey === true && envValue(env, 'FRAUDCTL_API_KEY') !== undefined) {
    says.push("FRAUDCTL_API_KEY is set in this shell and wins over the profile's key: commands here send that key");
    names.push('FRAUDCTL_API_KEY');
  }
  if (says.length === 0) return undefined;
  return `warning: ${says.join('; ')}. To use what was just set, run: ${unsetEnvCommand(names)}`;
}
