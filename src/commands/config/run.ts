import { CliError, ExitCode, UsageError } from '../../errors/cli-error.js';
import {
  deleteProfile,
  getSetting,
  keyMoveOf,
  listProfiles,
  setSetting,
  unsetSetting,
  useProfile,
  type KeyMove,
  type ConfigKey,
  type SettingKey,
} from '../../profiles/stored-profiles.js';
import { readConfigFile } from '../../profiles/config-file.js';
import { shellOverrides, type JustSet } from '../../profiles/setting-hints.js';
import { profileActedOn } from '../../profiles/settings.js';
import { SANDBOX_PROFILE, normalisedBaseUrl, ownProfile, quote } from '../../profiles/value-rules.js';
import { forgetProfileKey } from '../../credentials/profile-keys.js';
import { terminalSafe } from '../../render/terminal-text.js';
import { shellCommand } from '../../render/shell-command.js';
import { sym } from '../../render/symbols.js';
import { createOutput, type Output } from '../../render/output.js';
import type { ConfigDeps } from './deps.js';
import type { ConfigOptions } from './options.js';
import { profileJson } from './render-json.js';

/*
 * The work of `fraudctl config …`: which profile a verb acts on, what it asks, and what it
 * prints. The reading and writing of the file is stored-profiles.ts's. A variable of the shell that
 * wins over what a verb just changed is named, with how to unset it (setting-hints.ts).
 */

/** One verb's run: its options, its deps, and where its results go. */
interface Session {
  options: ConfigOptions;
  deps: ConfigDeps;
  output: Output;
}

export async function run(options: ConfigOptions, deps: ConfigDeps): Promise<void> {
  const output = createOutput(deps, { json: options.json, noColorFlag: options.noColor });
  const session: Session = { options, deps, output };
  switch (options.verb) {
    case 'list':
      return listConfig(session);
    case 'get':
      return getConfig(session, options.key);
    case 'set':
      return setConfig(session, options.key, options.value, { yes: options.yes });
    case 'unset':
      return unsetConfig(session, options.key);
    case 'use':
      return useConfig(session, options.name);
    case 'delete':
      return deleteConfig(session, options.name, { yes: options.yes });
  }
}

/** The warning line when the shell's variables override what was just set. */
async function warnOverrides(session: Session, set: JustSet): Promise<void> {
  const line = shellOverrides(session.deps.env, set);
  if (line !== undefined) session.output.note(line);
}

function targetProfile(session: Session): string {
  return profileActedOn(session.options.profile ?? undefined, session.deps.env, 'active');
}

/**
 * After a change, `--json` prints the profile as it now is, in `config list --json`'s shape, so
 * a script sees what it changed without a second call (the note stays on stderr).
 */
async function printChanged(session: Session, profile: string): Promise<void> {
  const { output } = session;
  if (!output.json) return;
  const listed = listProfiles(session.deps.env, session.options.profile ?? undefined).find((p) => p.name === profile);
  if (listed !== undefined) output.printJson(profileJson(listed));
}

async function listConfig(session: Session): Promise<void> {
  const profiles = listProfiles(session.deps.env, session.options.profile ?? undefined);
  const { output } = session;
  if (output.json) return output.printJson(profiles.map(profileJson));
  const { renderProfiles } = await import('./render-table.js');
  output.print(renderProfiles(profiles, output.style));
}

async function getConfig(session: Session, key: ConfigKey): Promise<void> {
  const { output } = session;
  const profile = targetProfile(session);
  if (!output.json) return output.print(getSetting(session.deps.env, profile, key as SettingKey));
  // --json: the value as JSON (a number, a boolean, a string, or null when there is none), from
  // the same listing as config list --json; a profile that is not there is refused as without it.
  const listed = listProfiles(session.deps.env, profile).find((p) => p.name === profile);
  if (listed === undefined) return void getSetting(session.deps.env, profile, key as SettingKey);
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

interface SetOptions {
  /** --yes: a new base URL may move the profile's stored key without asking. */
  yes?: boolean;
}

async function setConfig(session: Session, key: SettingKey, value: string, options: SetOptions = {}): Promise<void> {
  const profile = targetProfile(session);
  const { env } = session.deps;
  if (key !== 'base-url') {
    setSetting(env, profile, key as SettingKey, value);
    session.output.note(`profile "${profile}": ${key} set`);
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
  session.output.note(
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
  const where = move.keptIn === 'credential-store' ? session.deps.storeName : 'the config file';
  const from = move.from === undefined ? 'no URL' : terminalSafe(move.from);
  const words = `profile ${quote(move.profile)} keeps an API key (in ${where}) for ${from}: with this change it will be sent to ${terminalSafe(move.to)}`;
  if (session.deps.canPrompt) {
    session.output.note(words);
    const go = await (
      await session.deps.prompter()
    ).confirm(`Move profile ${quote(move.profile)} and its key to ${terminalSafe(move.to)}?`, false);
    if (!go) throw new CliError('cancelled: nothing was changed', ExitCode.INTERRUPTED);
    return;
  }
  const again = shellCommand(['fraudctl', 'config', 'set', 'base-url', move.to, '--profile', move.profile, '--yes']);
  throw new UsageError(`${words}; not changed without --yes`, `if the key is meant to go there: ${again}`);
}

async function unsetConfig(session: Session, key: ConfigKey): Promise<void> {
  const profile = targetProfile(session);
  // The key goes from wherever it is kept, as with logout.
  if (key === 'api-key') await forgetProfileKey(session.deps.env, profile, session.deps.credentialStore);
  else unsetSetting(session.deps.env, profile, key as SettingKey);
  session.output.note(`profile "${profile}": ${key} removed`);
  if (key === 'api-key') await warnOverrides(session, { apiKey: true });
  await printChanged(session, profile);
}

async function useConfig(session: Session, profile: string): Promise<void> {
  const { env } = session.deps;
  useProfile(env, profile);
  session.output.note(`profile "${profile}" is now the active one`);
  const url = profile === SANDBOX_PROFILE ? null : ownProfile(readConfigFile(env).profiles, profile)?.baseUrl;
  await warnOverrides(session, { profile, ...(url !== undefined ? { baseUrl: url } : {}), apiKey: true });
  await printChanged(session, profile);
}

/**
 * `config delete PROFILE`: the key leaves wherever it is kept (the credential store, the file),
 * then the profile leaves the file. On a terminal it asks (no by default); elsewhere it takes
 * --yes. Deleting the active profile says which one is active now.
 */
async function deleteConfig(session: Session, profile: string, options: { yes: boolean }): Promise<void> {
  const { env } = session.deps;
  const file = readConfigFile(env);
  // The built-in sandbox, or a name that is not there: refused as any verb refuses it (did you mean).
  if (profile === SANDBOX_PROFILE || ownProfile(file.profiles, profile) === undefined) deleteProfile(env, profile);
  const url = ownProfile(file.profiles, profile)?.baseUrl;
  const what = `profile ${quote(profile)}${url === undefined ? '' : ` (${terminalSafe(normalisedBaseUrl(url))})`} and its API key`;
  if (!options.yes) {
    if (!session.deps.canPrompt)
      throw new UsageError(
        `not deleting ${what} without --yes`,
        `to delete it: ${shellCommand(['fraudctl', 'config', 'delete', profile, '--yes'])}`,
      );
    const go = await (await session.deps.prompter()).confirm(`Delete ${what}?`, false);
    if (!go) throw new CliError('cancelled: nothing was deleted', ExitCode.INTERRUPTED);
  }
  await forgetProfileKey(env, profile, session.deps.credentialStore);
  const { wasActive } = deleteProfile(env, profile);
  const { output } = session;
  const active = listProfiles(env).find((p) => p.active)?.name ?? SANDBOX_PROFILE;
  const now = wasActive ? `; the active profile is now ${quote(active)}` : '';
  output.note(`deleted ${what}${now}`);
  if (output.json) output.printJson({ deleted: profile, active });
}
