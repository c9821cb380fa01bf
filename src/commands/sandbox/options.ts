/*
 * What `sandbox VERB` is asked to do, as one typed value: command.ts makes it from argv (the
 * port checked there), run.ts does it.
 */

export type SandboxOptions =
  | {
      verb: 'serve';
      /** The address to listen on; anything but loopback is refused while the public demo key is in use. */
      host: string;
      /** 0: any free port. */
      port: number;
      /** The SQLite file or `:memory:`; null: sandbox.db under the data directory. */
      db: string | null;
      /** A JSON file of merchants, rules, lists, thresholds and rates; null: the built-in one. */
      config: string | null;
      /** --chaos's fault spec as given (checked by the sandbox as it starts); null: no faults. */
      chaos: string | null;
      /** The global --debug: an unexpected error while serving is said with its stack. */
      debug: boolean;
    }
  | { verb: 'default-config' };
