import { CliError, ExitCode, UsageError } from '../../errors/cli-error.js';
import { readAllStdin } from '../../process/cli-context.js';
import type { ApiError } from '../../api/api-error.js';
import { classifyFailure } from '../../failures/failure-kind.js';
import { newProbeId } from '../../login/probe-id.js';
import { failureWords } from '../../failures/failure-words.js';
import { failureMessages } from '../../failures/failure-messages.js';
import { checkTransportResolving } from '../../api/transport.js';
import { shellOverrides, urlHint } from '../../profiles/setting-hints.js';
import { configFilePath, readConfigFile } from '../../profiles/config-file.js';
import { useProfile } from '../../profiles/stored-profiles.js';
import { terminalSafe } from '../../render/terminal-text.js';
import { activeProfileName, envValue, profileActedOn } from '../../profiles/settings.js';
import {
  SANDBOX_PROFILE,
  checkBaseUrl,
  normalisedBaseUrl,
  ownProfile,
  quote,
  sameServiceUrl,
  showUrl,
} from '../../profiles/value-rules.js';
import { shellCommand } from '../../render/shell-command.js';
import { saveProfileKey } from '../../credentials/profile-keys.js';
import { sym } from '../../render/symbols.js';
import type { LoginDeps } from './deps.js';
import type { LoginOptions } from './options.js';
import { renderLoggedIn } from './render.js';

/*
 * `fraudctl login`: read a key without it touching argv (hidden prompt, or stdin when piped),
 * prove it works — asking for an event that cannot exist: the service's own 404 means the key
 * was accepted — and only then store it: in the operating system's credential store when one is
 * usable, else (or with --insecure-storage) in the config file, mode 0600 (credentials/). A 404
 * that is not the service's (an HTML page, a route the server does not have: the API client
 * tells them apart) proves nothing, and nothing is saved. The key is for the profile and its URL
 * (settings.ts sends it nowhere else); that URL comes from --base-url or the profile, never from
 * FRAUDCTL_BASE_URL, and a profile that moves is said as old → new.
 */

/** The key, from a hidden prompt that names the profile and the service it is for, or from stdin. */
async function readKey(deps: LoginDeps, profile: string, baseUrl: string | undefined): Promise<string> {
  if (deps.canPrompt) {
    const service = baseUrl === undefined ? 'the embedded sandbox' : terminalSafe(baseUrl);
    return (await (await deps.prompter()).secret(`API key for profile "${terminalSafe(profile)}" (${service})`)).trim();
  }
  if (deps.stdin.isTTY)
    throw new UsageError(
      'login needs the key: run it on a terminal, or pipe the key on stdin',
      'e.g. pass show fraud/key | fraudctl login --profile prod',
    );
  return (await readAllStdin(deps)).trim();
}

export async function run(options: LoginOptions, deps: LoginDeps): Promise<void> {
  const { env } = deps;
  const note = (text: string) => deps.stderr.write(`${text}\n`);
  const profile = profileActedOn(options.profile ?? undefined, env, 'default');
  const profiles = readConfigFile(env, {
    warn: (message) => deps.stderr.write(`warning: ${message}\n`),
  }).profiles;
  const existing = ownProfile(profiles, profile);
  // A profile's URL is set or changed only by an explicit --base-url, never by FRAUDCTL_BASE_URL
  // (as `gh auth login` takes its host from --hostname, not GH_HOST): a variable exported for
  // other commands must not silently move a profile, or create one for the wrong service.
  const newBaseUrl = options.baseUrl ?? undefined;
  const fromShell = envValue(env, 'FRAUDCTL_BASE_URL');
  if (profile === SANDBOX_PROFILE && newBaseUrl !== undefined) {
    throw new UsageError(
      'the built-in sandbox profile has no URL to set',
      'log in to a service under a profile of its own: fraudctl login --profile NAME --base-url URL',
    );
  }
  const ownUrl = profile === SANDBOX_PROFILE ? undefined : existing?.baseUrl;
  const baseUrl = newBaseUrl ?? ownUrl;
  if (baseUrl === undefined && profile !== SANDBOX_PROFILE) {
    if (fromShell !== undefined) {
      throw new UsageError(
        `profile ${quote(profile)} has no service URL, and login does not take one from FRAUDCTL_BASE_URL`,
        checkBaseUrl(fromShell).ok
          ? `give it with --base-url: ${shellCommand(['fraudctl', 'login', '--profile', profile, '--base-url', normalisedBaseUrl(fromShell)])}`
          : `give it: fraudctl login --profile ${profile} --base-url https://${sym.ellipsis}`,
      );
    }
    throw new UsageError(
      `profile "${profile}" has no service URL`,
      `give it: fraudctl login --profile ${profile} --base-url https://${sym.ellipsis}`,
    );
  }
  if (
    newBaseUrl === undefined &&
    fromShell !== undefined &&
    (ownUrl === undefined || !sameServiceUrl(fromShell, ownUrl))
  ) {
    // Said before the key is asked for, so that the person typing it knows where it will be checked.
    const own =
      ownUrl === undefined
        ? 'the embedded sandbox'
        : `its own URL, ${terminalSafe(normalisedBaseUrl(ownUrl))} (to change it, give --base-url)`;
    note(
      `note: FRAUDCTL_BASE_URL=${showUrl(fromShell)} is not used by login: profile ${quote(profile)} is logged in at ${own}`,
    );
  }
  // Refused before the key is asked for: it would travel in clear text.
  const insecureHttp = options.insecureHttp || existing?.insecureHttp === true;
  const whereUrl = urlHint(profile, newBaseUrl !== undefined ? 'flag' : 'file');
  if (baseUrl !== undefined)
    await checkTransportResolving(
      baseUrl,
      insecureHttp,
      failureMessages({ ...failureWords({ profile }), urlSetting: whereUrl }),
      env,
    );

  const key = await readKey(deps, profile, baseUrl);
  if (key === '') throw new UsageError('no API key was given: nothing was saved');
  if (/\s/.test(key)) throw new UsageError('an API key has no spaces or line breaks: nothing was saved');

  // Check against the profile being logged into (it may not exist yet, so build its settings here).
  const client = await deps.probe({ profile, baseUrl: baseUrl ?? null, apiKey: key, insecureHttp });
  try {
    await client.getEvent(newProbeId());
    // An event that cannot exist was "found": whatever answered is not the service.
    throw new CliError(
      'nothing was saved: the server answered a request for an event that cannot exist with success, so it is not the fraud-screening service',
      ExitCode.FAILURE,
      `check ${whereUrl}: it should be the service's base address`,
    );
  } catch (error) {
    const failure = classifyFailure(error);
    if (failure.kind === 'not-the-service') {
      throw new CliError(
        `nothing was saved: ${failure.error.message}`,
        failure.exitCode,
        `check ${whereUrl}: it should be the service's base address`,
      );
    } else if (failure.kind === 'not-found') {
      // The key works: the service looked for the event and did not find it.
    } else if (failure.kind === 'auth') {
      // Only an answer of the service is of this kind: what it refused picks the words.
      const { status, errorType } = error as ApiError;
      const why =
        failure.refused === 'key' ? 'did not accept this key' : 'accepted the key, but its merchant is blocked';
      throw new CliError(
        `the service ${why}: nothing was saved (${status}${errorType ? ` ${errorType}` : ''})`,
        failure.exitCode,
        `check the key, and ${whereUrl}`,
      );
    } else {
      throw error;
    }
  } finally {
    await client.close();
  }
  // --insecure-http given at login is kept in the profile: later commands go to the same URL.
  // The URL as the profile will hold it (no trailing slash): part of the store entry's name.
  const entryUrl = baseUrl === undefined ? null : normalisedBaseUrl(baseUrl);
  const insecureStorage = options.insecureStorage;
  const saved = await saveProfileKey(
    env,
    {
      profile,
      key,
      ...(newBaseUrl !== undefined ? { newBaseUrl } : {}),
      baseUrl: entryUrl,
      insecureHttp: options.insecureHttp,
      insecureStorage,
    },
    deps.credentialStore,
  );
  const { storeNote, loggedIn } = renderLoggedIn(saved, {
    profile,
    key,
    configFile: configFilePath(env),
    storeName: deps.storeName,
    insecureStorage,
    ownUrl,
    newBaseUrl,
    baseUrl,
  });
  for (const line of [...storeNote, loggedIn]) note(line);
  await offerToActivate(deps, profile);
  const overridden = shellOverrides(env, {
    profile,
    baseUrl: baseUrl === undefined ? null : normalisedBaseUrl(baseUrl),
    apiKey: true,
  });
  if (overridden !== undefined) note(overridden);
}

/**
 * A profile just logged into is not yet the one commands use unless it is the active one:
 * on a terminal, ask whether to make it so; otherwise say how.
 */
async function offerToActivate(deps: LoginDeps, profile: string): Promise<void> {
  const note = (text: string) => deps.stderr.write(`${text}\n`);
  // The profile the config file makes active (FRAUDCTL_PROFILE is one shell's choice, not the setting to change).
  const { FRAUDCTL_PROFILE: _fromShell, ...envWithoutShellChoice } = deps.env;
  const active = activeProfileName(envWithoutShellChoice, readConfigFile(deps.env));
  if (active === profile) return;
  if (
    deps.canPrompt &&
    (await (await deps.prompter()).confirm(`Make "${profile}" the active profile (instead of "${active}")?`, true))
  ) {
    useProfile(deps.env, profile);
    note(`"${profile}" is now the active profile`);
    return;
  }
  note(
    `The active profile is still "${active}": to use "${profile}", run fraudctl config use ${profile}, or add --profile ${profile} to a command`,
  );
}
