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

/** One verb's run: its options, its deps, and where its results go (made once by run, passed to each verb). */
interface VerbRun {
  options: ConfigOptions;
  deps: ConfigDeps;
  output: Output;
}

export async function run(options: ConfigOptions, deps: ConfigDeps): Promise<void> {
  const output = createOutput(deps, { json: options.json, noColorFlag: options.noColor });
  const verb: VerbRun = { options, deps, output };
  switch (options.verb) {
    case 'list':
      return listConfig(verb);
    case 'get':
      return getConfig(verb, options.key);
    case 'set':
      return setConfig(verb, options.key, options.value, { yes: options.yes });
    case 'unset':
      return unsetConfig(verb, options.key);
    case 'use':
      return useConfig(verb, options.name);
    case 'delete':
      return deleteConfig(verb, options.name, { yes: options.yes });
  }
}

/** The warning line when the shell's variables override what was just set. */
async function warnOverrides(verb: VerbRun, set: JustSet): Promise<void> {
  const line = shellOverrides(verb.deps.env, set);
  if (line !== undefined) verb.output.note(line);
}

function targetProfile(verb: VerbRun): string {
  return profileActedOn(verb.options.profile ?? undefined, verb.deps.env, 'active');
}

/**
 * After a change, `--json` prints the profile as it now is, in `config list --json`'s shape, so
 * a script sees what it changed without a second call (the note stays on stderr).
 */
async function printChanged(verb: VerbRun, profile: string): Promise<void> {
  const { output } = verb;
  if (!output.json) return;
  const listed = listProfiles(verb.deps.env, verb.options.profile ?? undefined).find((p) => p.name === profile);
  if (listed !== undefined) output.printJson(profileJson(listed));
}

async function listConfig(verb: VerbRun): Promise<void> {
  const profiles = listProfiles(verb.deps.env, verb.options.profile ?? undefined);
  const { output } = verb;
  if (output.json) return output.printJson(profiles.map(profileJson));
  const { renderProfiles } = await import('./render-table.js');
  output.print(renderProfiles(profiles, output.style));
}

async function getConfig(verb: VerbRun, key: ConfigKey): Promise<void> {
  const { output } = verb;
  const profile = targetProfile(verb);
  if (!output.json) return output.print(getSetting(verb.deps.env, profile, key as SettingKey));
  // --json: the value as JSON (a number, a boolean, a string, or null when there is none), from
  // the same listing as config list --json; a profile that is not there is refused as without it.
  const listed = listProfiles(verb.deps.env, profile).find((p) => p.name === profile);
  if (listed === undefined) return void getSetting(verb.deps.env, profile, key as SettingKey);
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

async function setConfig(verb: VerbRun, key: SettingKey, value: string, options: SetOptions = {}): Promise<void> {
  const profile = targetProfile(verb);
  const { env } = verb.deps;
  if (key !== 'base-url') {
    setSetting(env, profile, key as SettingKey, value);
    verb.output.note(`profile "${profile}": ${key} set`);
    return printChanged(verb, profile);
  }
  const move = keyMoveOf(env, profile, value);
  if (move !== null && options.yes !== true) await confirmKeyMove(verb, move);
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
  verb.output.note(
    `profile "${profile}"${created}: ${change}${move !== null ? `; its API key now goes to ${terminalSafe(to)}` : ''}`,
  );
  await warnOverrides(verb, { baseUrl: to });
  await printChanged(verb, profile);
}

/**
 * A new URL for a profile with a stored key sends that key to the new URL from now on: on a
 * terminal the user is asked (no by default); elsewhere it takes --yes (exit 2 without).
 */
async function confirmKeyMove(verb: VerbRun, move: KeyMove): Promise<void> {
  const where = move.keptIn === 'credential-store' ? verb.deps.storeName : 'the config file';
  const from = move.from === undefined ? 'no URL' : terminalSafe(move.from);
  const words = `profile ${quote(move.profile)} keeps an API key (in ${where}) for ${from}: with this change it will be sent to ${terminalSafe(move.to)}`;
  if (verb.deps.canPrompt) {
    verb.output.note(words);
    const go = await (
      await verb.deps.prompter()
    ).confirm(`Move profile ${quote(move.profile)} and its key to ${terminalSafe(move.to)}?`, false);
    if (!go) throw new CliError('cancelled: nothing was changed', ExitCode.INTERRUPTED);
    return;
  }
  const again = shellCommand(['fraudctl', 'config', 'set', 'base-url', move.to, '--profile', move.profile, '--yes']);
  throw new UsageError(`${words}; not changed without --yes`, `if the key is meant to go there: ${again}`);
}

async function unsetConfig(verb: VerbRun, key: ConfigKey): Promise<void> {
  const profile = targetProfile(verb);
  // The key goes from wherever it is kept, as with logout.
  if (key === 'api-key') await forgetProfileKey(verb.deps.env, profile, verb.deps.credentialStore);
  else unsetSetting(verb.deps.env, profile, key as SettingKey);
  verb.output.note(`profile "${profile}": ${key} removed`);
  if (key === 'api-key') await warnOverrides(verb, { apiKey: true });
  await printChanged(verb, profile);
}

async function useConfig(verb: VerbRun, profile: string): Promise<void> {
  const { env } = verb.deps;
  useProfile(env, profile);
  verb.output.note(`profile "${profile}" is now the active one`);
  const url = profile === SANDBOX_PROFILE ? null : ownProfile(readConfigFile(env).profiles, profile)?.baseUrl;
  await warnOverrides(verb, { profile, ...(url !== undefined ? { baseUrl: url } : {}), apiKey: true });
  await printChanged(verb, profile);
}

/**
 * `config delete PROFILE`: the key leaves wherever it is kept (the credential store, the file),
 * then the profile leaves the file. On a terminal it asks (no by default); elsewhere it takes
 * --yes. Deleting the active profile says which one is active now.
 */
async function deleteConfig(verb: VerbRun, profile: string, options: { yes: boolean }): Promise<void> {
  const { env } = verb.deps;
  const file = readConfigFile(env);
  // The built-in sandbox, or a name that is not there: refused as any verb refuses it (did you mean).
  if (profile === SANDBOX_PROFILE || ownProfile(file.profiles, profile) === undefined) deleteProfile(env, profile);
  const url = ownProfile(file.profiles, profile)?.baseUrl;
  const what = `profile ${quote(profile)}${url === undefined ? '' : ` (${terminalSafe(normalisedBaseUrl(url))})`} and its API key`;
  if (!options.yes) {
    if (!verb.deps.canPrompt)
      throw new UsageError(
        `not deleting ${what} without --yes`,
        `to delete it: ${shellCommand(['fraudctl', 'config', 'delete', profile, '--yes'])}`,
      );
    const go = await (await verb.deps.prompter()).confirm(`Delete ${what}?`, false);
    if (!go) throw new CliError('cancelled: nothing was deleted', ExitCode.INTERRUPTED);
  }
  await forgetProfileKey(env, profile, verb.deps.credentialStore);
  const { wasActive } = deleteProfile(env, profile);
  const { output } = verb;
  const active = listProfiles(env).find((p) => p.active)?.name ?? SANDBOX_PROFILE;
  const now = wasActive ? `; the active profile is now ${quote(active)}` : '';
  output.note(`deleted ${what}${now}`);
  if (output.json) output.printJson({ deleted: profile, active });
}
