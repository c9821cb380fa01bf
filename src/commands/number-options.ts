import { InvalidArgumentError, Option, type Command } from 'commander';

/** The most requests one command has in flight (a batch, many ids): --concurrency is capped at this. */
export const MAX_CONCURRENCY = 256;

/** A parser for an option that takes a whole number from min to max; `what` names it in the error. */
export function wholeNumber(min: number, max: number, what: string): (value: string) => number {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max)
      throw new InvalidArgumentError(`${what} is a whole number from ${min} to ${max}`);
    return n;
  };
}

/** `--concurrency <n>` of submit's batches, show's and set-state's many ids: 1 to MAX_CONCURRENCY. */
export function concurrencyOption(description: string): Option {
  return new Option('--concurrency <n>', description).argParser(wholeNumber(1, MAX_CONCURRENCY, 'the concurrency'));
}

/** Whether the option was given on the command line (or by its environment variable), not left to its default. */
export function givenOnCommandLine(command: Command, name: string): boolean {
  const source = command.getOptionValueSource(name);
  return source !== undefined && source !== 'default';
}
