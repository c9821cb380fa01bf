import type { SettingHints } from '../profiles/setting-hints.js';
import { SANDBOX_PROFILE } from '../profiles/value-rules.js';

/*
 * The words of the client's failures: every command, flag and setting a failure's message or
 * hint names (failure-messages.ts puts them in sentences). Built by the session from the profile
 * in use and where its key and URL came from (setting-hints.ts), so that a hint names the setting
 * to change; without those, the flags. Tested as a table (test/failures/failure-words.test.ts).
 */

export interface FailureWords {
  /** The option naming the service URL ("check … : it should name the service"). */
  readonly urlOption: string;
  /** Where the URL in force is changed: "check the host name in …", "check …". */
  readonly urlSetting: string;
  /** The hint for an answer that is not the service's. */
  readonly notTheService: string;
  /** The hint for a refused key (401). */
  readonly keyRefused: string;
  /** The command that shows the stored event. */
  showEvent(eventId: string): string;
  /** Where the states and their transitions are listed. */
  readonly stateHelp: string;
  /** The option that sets the time a call may take. */
  readonly timeoutOption: string;
  /** What to do when a batch's retry budget is spent. */
  readonly budgetSpent: string;
  /** How to allow plain http:// to another host, when the path is trusted. */
  readonly allowInsecureHttp: string;
}

export interface WordsContext {
  /** The profile in use (the built-in sandbox profile is never named: it needs no --profile). */
  profile?: string;
  /** Where the key and the URL in force came from, in words (the session's). */
  hints?: SettingHints;
}

export function failureWords(context: WordsContext = {}): FailureWords {
  const { profile, hints } = context;
  const forProfile = profile !== undefined && profile !== SANDBOX_PROFILE ? ` --profile ${profile}` : '';
  return {
    urlOption: '--base-url',
    urlSetting: hints?.url ?? '--base-url or the profile (fraudctl config list)',
    notTheService: hints
      ? `check ${hints.url}: it should be the service's base address`
      : `check --base-url or the profile's URL (fraudctl config get base-url${forProfile}): it should be the service's base address`,
    keyRefused: hints?.key ?? `check the key: run fraudctl login${forProfile}, or set FRAUDCTL_API_KEY`,
    showEvent: (eventId) => `fraudctl show ${eventId}`,
    stateHelp: 'fraudctl set-state --help',
    timeoutOption: '--timeout',
    budgetSpent: 'run the batch again later with --resume',
    allowInsecureHttp: `--insecure-http or: fraudctl config set insecure-http true${forProfile}`,
  };
}
