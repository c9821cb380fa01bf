import type { Command } from 'commander';
import type { CliContext } from './process/cli-context.js';
import { CliError } from './errors/cli-error.js';
import { ApiClient, type ApiClientOptions } from './api/api-client.js';
import { requireApiKey, resolveSettings, type Settings } from './profiles/settings.js';
import { readConfigFile } from './profiles/config-file.js';
import { readStoredKey, type CredentialStore } from './credentials/credential-store.js';
import { settingHints } from './profiles/setting-hints.js';
import { failureWords } from './failures/failure-words.js';
import { failureMessages } from './failures/failure-messages.js';
import { checkTransportResolving } from './api/transport.js';
import { createOutput, type Output } from './render/output.js';
import { defaultSandboxDb } from './paths/xdg-paths.js';
import type { Prompter } from './prompter/prompter.js';
import { sym } from './render/symbols.js';

/*
 * Everything a client command may need for one run, built lazily from the global options:
 * settings, the API client (starting the embedded sandbox when no service is configured),
 * the output (colour, JSON, sanitising) and the prompter, each constructed when first asked
 * for. The client's own code is imported statically (one file to load, see scripts/build.mjs),
 * the credential store's wrapper too (it loads its native library only when a key is there);
 * what is heavy and only some commands need (prompts, the sandbox) is import()ed.
 */

export interface GlobalOptions {
  baseUrl?: string;
  profile?: string;
  timeout?: number;
  json?: boolean;
  color?: boolean;
  input?: boolean;
  debug?: boolean;
  insecureHttp?: boolean;
}

/** What the call that makes the client may set: the pool, a job's say over its calls, its abort, and (a test's) the waits between attempts. */
export type SessionClientOptions = Pick<ApiClientOptions, 'connections' | 'control' | 'signal' | 'sleep'>;

interface EmbeddedSandbox {
  close(): Promise<void>;
}

export class Session {
  private settingsValue?: Settings;
  private storedKey?: Promise<string>;
  private clientValue?: ApiClient;
  private clientPromise: Promise<ApiClient> | null = null;
  private outputValue?: Output;
  private sandbox?: EmbeddedSandbox;
  /** The first fault of the embedded sandbox's database file (damaged, disk full): the real cause of its 500s. */
  sandboxFault?: Error;

  constructor(
    readonly context: CliContext,
    readonly globals: GlobalOptions,
    private readonly settingsOverride?: Pick<Settings, 'profile' | 'baseUrl' | 'apiKey'> & { insecureHttp?: boolean },
    /** Where a stored key is read from: the system's store unless a test gives its own. */
    private readonly openStore?: () => Promise<CredentialStore>,
  ) {}

  /**
   * A session for a profile that may not be configured yet (login checks a key against it
   * before saving): that profile and URL, with the timeout and retries of this run.
   */
  withSettingsOverride(
    override: Pick<Settings, 'profile' | 'baseUrl' | 'apiKey'> & { insecureHttp?: boolean },
  ): Session {
    return new Session(this.context, this.globals, override, this.openStore);
  }

  get json(): boolean {
    return this.globals.json === true;
  }

  /** Prompts only with a terminal on both ends, and never with --no-input. */
  get canPrompt(): boolean {
    return this.globals.input !== false && Boolean(this.context.stdin.isTTY) && Boolean(this.context.stdout.isTTY);
  }

  /** The flags of this run that choose the service, for a command in a hint to reach the same one. */
  serviceFlags(): string[] {
    const { baseUrl, profile, insecureHttp } = this.globals;
    return [
      ...(profile !== undefined ? ['--profile', profile] : []),
      ...(baseUrl !== undefined ? ['--base-url', baseUrl] : []),
      ...(insecureHttp ? ['--insecure-http'] : []),
    ];
  }

  debugLine(line: string): void {
    if (this.globals.debug) this.context.stderr.write(`debug: ${line}\n`);
  }

  async settings(): Promise<Settings> {
    if (!this.settingsValue) {
      const timeout = {
        ...(this.globals.timeout !== undefined ? { timeoutSeconds: this.globals.timeout } : {}),
        ...(this.globals.insecureHttp ? { insecureHttp: true } : {}),
      };
      if (this.settingsOverride) {
        // Only the timeout and retries are resolved as usual; no profile, URL or key from elsewhere applies.
        const { FRAUDCTL_PROFILE, FRAUDCTL_BASE_URL, FRAUDCTL_API_KEY, ...env } = this.context.env;
        const base = resolveSettings(timeout, env, { profiles: {} });
        const insecureHttp = base.insecureHttp || this.settingsOverride.insecureHttp === true;
        this.settingsValue = {
          ...base,
          ...this.settingsOverride,
          insecureHttp,
          apiKeySource: null,
          isSandbox: this.settingsOverride.baseUrl === null,
        };
      } else {
        const flags = {
          ...timeout,
          ...(this.globals.baseUrl !== undefined ? { baseUrl: this.globals.baseUrl } : {}),
          ...(this.globals.profile !== undefined ? { profile: this.globals.profile } : {}),
        };
        const warn = (message: string) => this.context.stderr.write(`warning: ${message}\n`);
        this.settingsValue = resolveSettings(flags, this.context.env, readConfigFile(this.context.env, { warn }));
      }
    }
    return this.settingsValue;
  }

  /**
   * The API key of the settings in force, or the error saying how to give one (exit 3). A key in
   * the credential store is read here, at the first call: only commands that send a request pay
   * for it, and a command whose key comes from FRAUDCTL_API_KEY never loads the store's library.
   * A stored key whose profile's URL is not the one in force is refused (exit 2), unread.
   */
  async apiKey(): Promise<string> {
    const settings = await this.settings();
    // A stored key is sent only to its profile's URL (settings.ts): refused here, before any request.
    if (settings.keyRefusal !== undefined) throw settings.keyRefusal;
    if (settings.apiKey !== null && settings.apiKey !== '') return settings.apiKey;
    if (settings.apiKeySource === 'credential-store' && settings.credentialAccount !== null) {
      const account = settings.credentialAccount;
      this.storedKey ??= readStoredKey(settings.profile, account, this.context.env, this.openStore);
      return this.storedKey;
    }
    return requireApiKey(settings);
  }

  async output(): Promise<Output> {
    if (!this.outputValue) {
      this.outputValue = createOutput(this.context, { json: this.json, noColorFlag: this.globals.color === false });
    }
    return this.outputValue;
  }

  async prompter(): Promise<Prompter> {
    const { createPrompter } = await import('./prompter/prompter.js');
    return createPrompter(this.context);
  }

  /**
   * The API client for the settings in force, made at the first call. `batch` (pool size,
   * pacing, abort) configures it, so only the call that makes the client may pass it: a second
   * call with options is a bug (they would be dropped), and throws.
   */
  client(batch?: SessionClientOptions): Promise<ApiClient> {
    if (this.clientPromise) {
      if (batch !== undefined)
        return Promise.reject(
          new Error('Session.client: the client exists already; its options are given at the first call only'),
        );
      return this.clientPromise;
    }
    // The promise is kept, not the client: calls that overlap before the first ends (parallel
    // reads) share one client, and one embedded sandbox, instead of each starting its own.
    this.clientPromise = this.makeClient(batch);
    // A first call that failed (a key that cannot be read) is not kept: the next call tries again.
    this.clientPromise.catch(() => (this.clientPromise = null));
    return this.clientPromise;
  }

  private async makeClient(batch?: SessionClientOptions): Promise<ApiClient> {
    const settings = await this.settings();
    // The key first: a key that cannot be read starts no sandbox.
    const apiKey = await this.apiKey();
    let baseUrl = settings.baseUrl;
    if (baseUrl === null) baseUrl = await this.startEmbeddedSandbox();
    const hints = settingHints(settings.profile, settings.sources);
    const describe = failureMessages(failureWords({ profile: settings.profile, hints }));
    // A host that does not resolve is said before any refusal of plain http:// to it.
    await checkTransportResolving(baseUrl, settings.insecureHttp, describe, this.context.env);
    const client = new ApiClient({
      baseUrl,
      apiKey,
      timeoutMs: settings.timeoutMs,
      retry: { maxRetries: settings.retries },
      env: this.context.env,
      describe,
      insecureHttp: settings.insecureHttp,
      ...(this.globals.debug ? { debug: (line: string) => this.debugLine(line) } : {}),
      ...batch,
    });
    this.clientValue = client;
    return client;
  }

  private async startEmbeddedSandbox(): Promise<string> {
    const { startHostedSandbox } = await import('./sandbox-host/start-sandbox.js');
    const dbPath = defaultSandboxDb(this.context.env);
    const sandbox = await startHostedSandbox({
      host: '127.0.0.1',
      port: 0,
      dbPath,
      dbInOwnDirectory: true,
      env: this.context.env,
      onUnexpectedError: (error) => {
        // A fault of the database file comes as a CliError naming it (other errors are plain).
        if (error instanceof CliError) this.sandboxFault ??= error;
      },
    });
    this.sandbox = sandbox;
    const output = await this.output();
    output.note(
      `${output.style.sandboxBadge(' SANDBOX ')} embedded local service, not production ${sym.dot} data: ${dbPath}`,
    );
    return sandbox.url;
  }

  async close(): Promise<void> {
    await this.clientValue?.close();
    await this.sandbox?.close();
  }
}

/** Runs a command's work with a session built from its global options, and always cleans up. */
export async function withSession(
  context: CliContext,
  command: Command,
  work: (session: Session) => Promise<void>,
): Promise<void> {
  const session = new Session(context, command.optsWithGlobals<GlobalOptions>());
  try {
    await work(session);
  } catch (error) {
    // The embedded sandbox's 500s said only "internal error": its database file is the cause to name.
    throw session.sandboxFault ?? error;
  } finally {
    await session.close();
  }
}
