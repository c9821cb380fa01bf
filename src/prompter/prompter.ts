import { confirm, input, password, select } from '@inquirer/prompts';
import type { CliContext } from '../process/cli-context.js';
import { CliError, ExitCode } from '../errors/cli-error.js';
import { sym } from '../render/symbols.js';

/*
 * Questions to the person at the terminal (@inquirer/prompts), on the context's streams.
 * Callers ask only when Session.canPrompt says a person is there. A prompt the person
 * cancels (Ctrl-C, or a closed input) ends the command with exit 130.
 */

export interface Choice<T> {
  name: string;
  value: T;
  description?: string;
}

export interface Prompter {
  select<T>(message: string, choices: Choice<T>[], defaultValue?: T): Promise<T>;
  input(message: string, options?: { defaultValue?: string; required?: boolean }): Promise<string>;
  confirm(message: string, defaultValue: boolean): Promise<boolean>;
  secret(message: string): Promise<string>;
}

async function cancellable<T>(question: Promise<T>): Promise<T> {
  try {
    return await question;
  } catch (error) {
    const name = (error as Error).name;
    if (name === 'ExitPromptError' || name === 'AbortPromptError' || name === 'CancelPromptError') {
      throw new CliError('cancelled: nothing was changed', ExitCode.INTERRUPTED);
    }
    throw error;
  }
}

export function createPrompter(context: CliContext): Prompter {
  const streams = { input: context.stdin, output: context.stdout };
  return {
    select: (message, choices, defaultValue) =>
      cancellable(
        select(
          { message, choices, ...(defaultValue !== undefined ? { default: defaultValue } : {}), pageSize: 12 },
          streams,
        ),
      ),
    input: (message, options = {}) =>
      cancellable(
        input(
          {
            message,
            required: options.required ?? false,
            ...(options.defaultValue !== undefined ? { default: options.defaultValue } : {}),
          },
          streams,
        ),
      ),
    confirm: (message, defaultValue) => cancellable(confirm({ message, default: defaultValue }, streams)),
    secret: (message) => cancellable(password({ message, mask: sym.bullet }, streams)),
  };
}
