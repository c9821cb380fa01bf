import { readFileSync } from 'node:fs';
import { hash } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { LIST_FIELDS, SEVERITIES } from '../../contract/index.js';
import { inputError } from '../sandbox-error.js';
import defaultConfig from './default-config.json' with { type: 'json' };

/*
 * The sandbox's configuration: merchants and their keys, scoring rules, allow/deny lists,
 * thresholds, base currency and rates. A file given with --config replaces the defaults
 * key by key (a file with only "rules" keeps the default merchants, lists and rates).
 */

const RuleSchema = Type.Object(
  {
    id: Type.String({ pattern: '^[A-Za-z0-9_.-]{1,64}$' }),
    name: Type.String({ minLength: 1 }),
    description: Type.String(),
    severity: Type.Union(SEVERITIES.map((s) => Type.Literal(s))),
    score: Type.Integer({ minimum: -100, maximum: 100 }),
    when: Type.Unknown({ description: 'a JsonLogic expression over the event facts' }),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

const ListEntrySchema = Type.Object(
  { field: Type.Union(LIST_FIELDS.map((f) => Type.Literal(f))), value: Type.String({ minLength: 1 }) },
  { additionalProperties: false },
);

const MerchantSchema = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 64 }),
    name: Type.Optional(Type.String()),
    apiKey: Type.Optional(Type.String({ minLength: 8 })),
    apiKeyEnv: Type.Optional(Type.String({ minLength: 1 })),
    blocked: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export const SandboxConfigSchema = Type.Object(
  {
    $schema: Type.Optional(Type.String()),
    baseCurrency: Type.String({ pattern: '^[A-Z]{3}$' }),
    rates: Type.Record(Type.String({ pattern: '^[A-Z]{3}$' }), Type.Number({ exclusiveMinimum: 0 })),
    thresholds: Type.Object(
      { review: Type.Integer({ minimum: 0, maximum: 100 }), decline: Type.Integer({ minimum: 0, maximum: 100 }) },
      { additionalProperties: false },
    ),
    merchants: Type.Array(MerchantSchema, { minItems: 1 }),
    allowlist: Type.Array(ListEntrySchema),
    denylist: Type.Array(ListEntrySchema),
    rules: Type.Array(RuleSchema),
  },
  { additionalProperties: false },
);
export type SandboxConfig = Static<typeof SandboxConfigSchema>;
export type RuleConfig = Static<typeof RuleSchema>;
export type ListEntry = Static<typeof ListEntrySchema>;

/** The key the default merchant uses when FRAUDCTL_SANDBOX_KEY is not set. Public, so loopback only. */
export const WELL_KNOWN_SANDBOX_KEY = 'sandbox-demo-key';

export interface Merchant {
  id: string;
  name: string;
  blocked: boolean;
  /** sha256 of the key: the key itself is not kept once the configuration is loaded. */
  keyDigest: Buffer;
  usesWellKnownKey: boolean;
}

export interface LoadedConfig {
  config: SandboxConfig;
  merchants: Merchant[];
  source: string;
}

export function defaultSandboxConfig(): SandboxConfig {
  return structuredClone(defaultConfig) as SandboxConfig;
}

export function keyDigest(key: string): Buffer {
  // One-shot hashing: this runs on every request.
  return hash('sha256', key, 'buffer');
}

/** Reads and checks a configuration file; `undefined` means the defaults. */
export function loadSandboxConfig(file: string | undefined, env: NodeJS.ProcessEnv): LoadedConfig {
  let config = defaultSandboxConfig();
  if (file !== undefined) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      throw inputError(`cannot read sandbox config ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (e) {
      throw inputError(`sandbox config ${file} is not valid JSON: ${(e as Error).message}`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw inputError(`sandbox config ${file} must be a JSON object`);
    }
    config = { ...config, ...(parsed as Partial<SandboxConfig>) };
  }
  return {
    config: checkSandboxConfig(config, file ?? 'built-in defaults'),
    merchants: resolveMerchants(config, file, env),
    source: file ?? 'built-in defaults',
  };
}

export function checkSandboxConfig(config: SandboxConfig, source: string): SandboxConfig {
  const first = Value.Errors(SandboxConfigSchema, config).First();
  if (first) {
    const where = first.path || '/';
    throw inputError(
      `sandbox config (${source}) ${where}: ${first.message}`,
      'print the defaults with `fraudctl sandbox default-config` and compare',
    );
  }
  if (config.rates[config.baseCurrency] === undefined) {
    throw inputError(`sandbox config (${source}): base currency ${config.baseCurrency} has no entry in rates`);
  }
  if (config.thresholds.review > config.thresholds.decline) {
    throw inputError(`sandbox config (${source}): thresholds.review must not be above thresholds.decline`);
  }
  const ids = new Set<string>();
  for (const r of config.rules) {
    if (ids.has(r.id)) throw inputError(`sandbox config (${source}): rule id ${r.id} appears twice`);
    ids.add(r.id);
  }
  // Events are stored and looked up by merchant id: two entries with one id would be one
  // tenant with two keys, each reading and changing the other's events.
  const merchantIds = new Set<string>();
  for (const m of config.merchants) {
    if (merchantIds.has(m.id)) {
      throw inputError(
        `sandbox config (${source}): merchant id ${m.id} appears twice (merchants with one id would share their events)`,
        'give each merchant its own id',
      );
    }
    merchantIds.add(m.id);
  }
  return config;
}

function resolveMerchants(config: SandboxConfig, source: string | undefined, env: NodeJS.ProcessEnv): Merchant[] {
  const seen = new Set<string>();
  return config.merchants.map((m) => {
    const fromEnv = m.apiKeyEnv ? env[m.apiKeyEnv] : undefined;
    const key = fromEnv !== undefined && fromEnv !== '' ? fromEnv : m.apiKey;
    if (!key) {
      throw inputError(
        `sandbox config (${source ?? 'built-in defaults'}): merchant ${m.id} has no key` +
          (m.apiKeyEnv ? ` (${m.apiKeyEnv} is not set and there is no apiKey)` : ' (give apiKey or apiKeyEnv)'),
      );
    }
    const digest = keyDigest(key);
    const hex = digest.toString('hex');
    if (seen.has(hex)) throw inputError(`sandbox config: two merchants share one API key (merchant ${m.id})`);
    seen.add(hex);
    return {
      id: m.id,
      name: m.name ?? m.id,
      blocked: m.blocked ?? false,
      keyDigest: digest,
      usesWellKnownKey: key === WELL_KNOWN_SANDBOX_KEY,
    };
  });
}
