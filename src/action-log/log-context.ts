import { hostname, userInfo } from 'node:os';
import { readConfigFile } from '../profiles/config-file.js';
import type { Settings } from '../profiles/settings.js';
import { ownProfile, SANDBOX_PROFILE, sameServiceUrl } from '../profiles/value-rules.js';
import { VERSION } from '../process/version.js';
import type { LogContext, LogEntry } from './action-log.js';

/*
 * Who, where and which build a session's --log lines name, built once per run when
 * the log is opened: the analyst the profile declares (`fraudctl config set analyst NAME`), else
 * the OS user; the host; the profile and its service URL (the key is never part of it; a URL
 * given by --base-url or FRAUDCTL_BASE_URL is named by where it came from); the
 * version; and a random session id, so that two runs of one analyst are told apart. The analyst
 * is declared, not authenticated: the API key is the merchant's, not a person's (SECURITY.md).
 */

/** The settings a log's lines are named by. */
export type LogSettings = Pick<Settings, 'analyst' | 'profile' | 'baseUrl' | 'sources'>;

/** The OS user's name; `unknown` where the system has none for this uid (a container's). */
function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}

/**
 * The profile a line names: the one in force, unless the service URL came from --base-url or
 * FRAUDCTL_BASE_URL and is not that profile's own URL: where the URL came from is named instead.
 * A line saying "sandbox" beside a production URL would tell an auditor that the change went to
 * the sandbox; the analyst and reason codes still come from the profile, but where the change
 * went did not.
 */
function profileWords(settings: LogSettings, env: NodeJS.ProcessEnv): string {
  const source = settings.sources.baseUrl;
  if ((source !== 'flag' && source !== 'env') || settings.baseUrl === null) return settings.profile;
  let own: string | undefined;
  try {
    if (settings.profile !== SANDBOX_PROFILE) own = ownProfile(readConfigFile(env).profiles, settings.profile)?.baseUrl;
  } catch {
    // Read once already for the settings; a failure now names the source, which is true either way.
    own = undefined;
  }
  if (sameServiceUrl(own, settings.baseUrl)) return settings.profile;
  return source === 'flag' ? '(--base-url)' : '(FRAUDCTL_BASE_URL)';
}

/** Who, where and which build, from the run's settings and the environment (the config file's place). */
export function logContextFor(settings: LogSettings, env: NodeJS.ProcessEnv): LogContext {
  return {
    analyst: settings.analyst ?? osUser(),
    host: hostname(),
    profile: profileWords(settings, env),
    service: settings.baseUrl,
    version: VERSION,
    // The Web Crypto global: no module to load for it.
    session: globalThis.crypto.randomUUID(),
  };
}

/** The log's action for a change to `state` (the review queue's names), or `comment` when only a comment is sent. */
export function actionForChange(state: string | undefined): LogEntry['action'] {
  if (state === undefined) return 'comment';
  const actions: Readonly<Record<string, LogEntry['action']>> = {
    APPROVED: 'approve',
    DECLINED: 'decline',
    ESCALATED: 'escalate',
    FRAUD_CONFIRMED: 'fraud',
  };
  return actions[state] ?? 'set-state';
}
