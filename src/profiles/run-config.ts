import type { Session } from '../session.js';
import { CliError, ExitCode, UsageError } from '../errors/cli-error.js';
import {
  deleteProfile,
  getSetting,
  keyMoveOf,
  listProfiles,
  NOT_SET_LABEL,
  setSetting,
  unsetSetting,
  useProfile,
  type KeyMove,
  type ConfigKey,
  type ProfileListing,
  type SettingKey,
} from './stored-profiles.js';
import { readConfigFile } from './config-file.js';
import { shellOverrides, type JustSet } from './setting-hints.js';
import { profileActedOn } from './settings.js';
import { SANDBOX_PROFILE, normalisedBaseUrl, ownProfile, quote } from './values.js';
import { forgetProfileKey } from '../credentials/profile-keys.js';
import { credentialStoreName } from '../credentials/credential-store.js';
import { terminalSafe } from '../render/terminal-text.js';
import { shellCommand } from '../render/shell-command.js';
import { sym } from '../render/symbols.js';

/*
 * The work of `fraudctl config …`: which profile a verb acts on, what it asks, and what it
 * prints. The reading and writing of the file is stored-profiles.ts's. A variable of the shell that
 * wins over what a verb just changed is named, with how to unset it (setting-hints.ts).
 */

/** The warning line when the shell's variables override what was just set. */
async function warnOverrides(session: Session, set: JustSet): Promise<void> {
  const line = shellOverrides(session.context.env, set);
  if (line !== undefined) (await session.output()).note(line);
}

function targetProfile(session: Session): string {
  return profileActedOn(session.globals.profile, session.context.env, 'active');
}

/**
 * A profile as `--json` gives it: values, never placeholders. An absent URL or key is null; the
 * built-in profile says it is the embedded sandbox in a field of its own; a key is shown redacted
 * only when the config file holds it (`keyStorage` says where any other is).
 */
function profileJson(p: ProfileListing) {
  return {
    name: p.name,
    active: p.active,
    baseUrl: p.builtIn || p.baseUrl === NOT_SET_LABEL ? null : p.baseUrl,
    embeddedSandbox: p.builtIn,
    apiKey: p.keyStorage === 'file' ? p.apiKey : null,
    keyStorage: p.keyStorage,
    timeoutSeconds: p.timeoutSeconds,
    retries: p.retries,
    insecureHttp: p.insecureHttp,
    analyst: p.analyst,
    reasons: p.reasons,
    requireReason: p.requireReason,
    builtIn: p.builtIn,
  };
}

/**
 * After a change, `--json` prints the profile as it now is, in `config list --json`'s shape, so
 * a script sees what it changed without a second call (the note stays on stderr).
 */
async function printChanged(session: Session, profile: string): Promise<void> {
  const output = await session.output();
  if (!output.json) return;
  const listed = listProfiles(session.context.env, session.globals.profile).find((p) => p.name === profile);
  if (listed !== undefined) output.printJson(profileJson(listed));
}

export async function listConfig(session: Session): Promise<void> {
  const profiles = listProfiles(session.context.env, session.globals.profile);
  const output = await session.output();
  if (output.json) return output.printJson(profiles.map(profileJson));
  const { renderProfiles } = await import('./profile-table.js');
  output.print(renderProfiles(profiles, output.style));
}

export async function getConfig(session: Session, key: string): Promise<void> {
  const output = await session.output();
  const profile = targetProfile(session);
  if (!output.json) return output.print(getSetting(session.context.env, profile, key as SettingKey));
  // --json: the value as JSON (a number, a boolean, a string, or null when there is none), from
  // the same listing as config list --json; a profile that is not there is refused as without it.
  const listed = listProfiles(session.context.env, profile).find((p) => p.name === profile);
  if (listed === undefined) return void getSetting(session.context.env, profile, key as SettingKey);
  const json = profileJson(listed);
  output.printJson(
    {
      'base-url': json.baseUrl,
      timeout: json.timeoutSeconds,
      retries: json.retries,
      'api-key': json.apiKey,
      'insecure-http': json.insecureHttp,
      analyst: json.analyst,
      reasons: json.reasons,
      'require-reason': json.requireReason,
    }[key as ConfigKey],
  );
}

export interface SetOptions {
  /** --yes: a new base URL may move the profile's stored key without asking. */
  yes?: boolean;
}

export async function setConfig(session: Session, key: string, value: string, options: SetOptions = {}): Promise<void> {
  const profile = targetProfile(session);
  const { env } = session.context;
  if (key !== 'base-url') {
    setSetting(env, profile, key as SettingKey, value);
    (await session.output()).note(`profile "${profile}": ${key} set`);
    return printChanged(session, profile);
  }
  const move = keyMoveOf(env, profile, value);
  if (move !== null && options.yes !== true) await confirmKeyMove(session, move);
  const beforeProfile = ownProfile(readConfigFile(env).profiles, profile);
  const existed = beforeProfile !== undefined;
  const before = beforeProfile?.baseUrl;
  setSetting(env, profile, 'base-url', value, move);
  const to = normalisedBaseUrl(value);
  const from = before === undefined ? undefined : normalisedBaseUrl(before);
  // A profile's URL that changes is said as old → new.
  const change =
    from !== undefined && from !== to
      ? `base-url ${terminalSafe(from)} ${sym.arrow} ${terminalSafe(to)}`
      : `base-url set to ${terminalSafe(to)}`;
  const created = ownProfile(readConfigFile(env).profiles, profile) !== undefined && !existed ? ' (a new profile)' : '';
  (await session.output()).note(
    `profile "${profile}"${created}: ${change}${move !== null ? `; its API key now goes to ${terminalSafe(to)}` : ''}`,
  );
  await warnOverrides(session, { baseUrl: to });
  await printChanged(session, profile);
}

/**
 * A new URL for a profile with a stored key sends that key to the new URL from now on: on a
 * terminal the user is asked (no by default); elsewhere it takes --yes (exit 2 without).
 */
async function confirmKeyMove(session: Session, move: KeyMove): Promise<void> {
  const where = move.keptIn === 'credential-store' ? credentialStoreName() : 'the config file';
  const from = move.from === undefined ? 'no URL' : terminalSafe(move.from);
  const words = `profile ${quote(move.profile)} keeps an API key (in ${where}) for ${from}: with this change it will be sent to ${terminalSafe(move.to)}`;
  if (session.canPrompt) {
    (await session.output()).note(words);
    const go = await (
      await session.prompter()
    ).confirm(`Move profile ${quote(move.profile)} and its key to ${terminalSafe(move.to)}?`, false);
    if (!go) throw new CliError('cancelled: nothing was changed', ExitCode.INTERRUPTED);
    return;
  }
  const again = shellCommand(['fraudctl', 'config', 'set', 'base-url', move.to, '--profile', move.profile, '--yes']);
  throw new UsageError(`${words}; not changed without --yes`, `if the key is meant to go there: ${again}`);
}

export async function unsetConfig(session: Session, key: string): Promise<void> {
  const profile = targetProfile(session);
  // The key goes from wherever it is kept, as with logout.
  if (key === 'api-key') await forgetProfileKey(session.context.env, profile);
  else unsetSetting(session.context.env, profile, key as SettingKey);
  (await session.output()).note(`profile "${profile}": ${key} removed`);
  if (key === 'api-key') await warnOverrides(session, { apiKey: true });
  await printChanged(session, profile);
}

export async function useConfig(session: Session, profile: string): Promise<void> {
  const { env } = session.context;
  useProfile(env, profile);
  (await session.output()).note(`profile "${profile}" is now the active one`);
  const url = profile === SANDBOX_PROFILE ? null : ownProfile(readConfigFile(env).profiles, profile)?.baseUrl;
  await warnOverrides(session, { profile, ...(url !== undefined ? { baseUrl: url } : {}), apiKey: true });
  await printChanged(session, profile);
}

/**
 * `config delete PROFILE`: the key leaves wherever it is kept (the credential store, the file),
 * then the profile leaves the file. On a terminal it asks (no by default); elsewhere it takes
 * --yes. Deleting the active profile says which one is active now.
 */
export async function deleteConfig(session: Session, profile: string, options: { yes: boolean }): Promise<void> {
  const { env } = session.context;
  const file = readConfigFile(env);
  // The built-in sandbox, or a name that is not there: refused as any verb refuses it (did you mean).
  if (profile === SANDBOX_PROFILE || ownProfile(file.profiles, profile) === undefined) deleteProfile(env, profile);
  const url = ownProfile(file.profiles, profile)?.baseUrl;
  const what = `profile ${quote(profile)}${url === undefined ? '' : ` (${terminalSafe(normalisedBaseUrl(url))})`} and its API key`;
  if (!options.yes) {
    if (!session.canPrompt)
      throw new UsageError(
        `not deleting ${what} without --yes`,
        `to delete it: ${shellCommand(['fraudctl', 'config', 'delete', profile, '--yes'])}`,
      );
    const go = await (await session.prompter()).confirm(`Delete ${what}?`, false);
    if (!go) throw new CliError('cancelled: nothing was deleted', ExitCode.INTERRUPTED);
  }
  await forgetProfileKey(env, profile);
  const { wasActive } = deleteProfile(env, profile);
  const output = await session.output();
  const active = listProfiles(env).find((p) => p.active)?.name ?? SANDBOX_PROFILE;
  const now = wasActive ? `; the active profile is now ${quote(active)}` : '';
  output.note(`deleted ${what}${now}`);
  if (output.json) output.printJson({ deleted: profile, active });
}
