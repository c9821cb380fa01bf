import { CliError } from '../errors/cli-error.js';
import { readConfigFile } from '../profiles/config-file.js';
import { knownProfiles } from '../profiles/settings.js';

/*
 * The values a completion script asks the CLI for when Tab is pressed, because they change:
 * today the profile names. Names only, one a line: no key, URL or setting leaves here.
 */

export const COMPLETION_VALUES = ['profiles'] as const;
export type CompletionValues = (typeof COMPLETION_VALUES)[number];

/** The profile names, the built-in sandbox last; none when the config file cannot be read (Tab must not print errors). */
export function completionValues(_what: CompletionValues, env: NodeJS.ProcessEnv): string[] {
  try {
    return knownProfiles(readConfigFile(env));
  } catch (error) {
    if (error instanceof CliError) return [];
    throw error;
  }
}
