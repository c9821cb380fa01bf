import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { eventPath } from '../../src/contract/paths.js';
import { CliError, UsageError } from '../../src/errors/cli-error.js';
import { readConfigFile, writeConfigFile } from '../../src/profiles/config-file.js';
import { jsonForTerminal, terminalSafe } from '../../src/render/terminal-text.js';
import { ACTIVE, hostileJson, hostileString } from '../render/hostile-text.js';
import { tempEnv } from '../profiles/temp-env.js';
import { notOnWindows, ON_WINDOWS } from '../support/prerequisites.js';

/*
 * Properties of what takes untrusted input: the terminal sanitiser, jsonForTerminal,
 * the event-id path encoder and the config loader. Every run is seeded, so a run that passes
 * passes every time; the properties are meant to hold for every input, the seed only fixes
 * which inputs are tried.
 */

const SEED = 0x5ec0de;
const runs = (numRuns: number) => ({ seed: SEED, numRuns });

/** Any code point, a lone surrogate half, or one of the characters that matter most here. */
const anyUnit = fc.oneof(
  fc.constantFrom(
    '\x1b',
    '\x9b',
    '\x9d',
    '\x85',
    '\x07',
    '\r',
    '\n',
    '\t',
    '\x00',
    '\x7f',
    '\u202e',
    '\u2066',
    '\u061c',
    '\u200f',
    '\u2028',
    '\ud800',
    '\udfff',
    '/',
    '.',
    '%',
    '\\',
    '?',
    '#',
  ),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
);
const anyString = fc.string({ unit: anyUnit, maxLength: 120 });
/** ESC and every other C0 control (newline and tab included: the sanitiser escapes them too), DEL, C1, bidi controls, separators, lone surrogates. */
const FORBIDDEN = ACTIVE;

describe('terminalSafe', () => {
  it('never lets through ESC, a C0 or C1 control or a bidi control, for any input', () => {
    fc.assert(
      fc.property(anyString, (s) => {
        expect(terminalSafe(s)).not.toMatch(FORBIDDEN);
      }),
      runs(2000),
    );
  });

  it('is idempotent, and leaves text without such characters as it is', () => {
    fc.assert(
      fc.property(anyString, (s) => {
        const once = terminalSafe(s);
        expect(terminalSafe(once)).toBe(once);
        if (!FORBIDDEN.test(s)) expect(once).toBe(s);
      }),
      runs(1000),
    );
  });
});

describe('jsonForTerminal', () => {
  it('round-trips to the same value, with no active character on any line', () => {
    fc.assert(
      fc.property(
        fc.oneof(hostileJson, fc.jsonValue({ maxDepth: 4, stringUnit: anyUnit })),
        fc.boolean(),
        (value, pretty) => {
          const text = jsonForTerminal(value, pretty);
          for (const line of text.split('\n')) expect(line).not.toMatch(FORBIDDEN);
          expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
        },
      ),
      runs(1000),
    );
  });
});

describe('eventPath (the id path encoder)', () => {
  const wellFormedId = anyString.filter((s) => s !== '' && !/[\ud800-\udfff]/u.test(s));
  const suffix = fc.constantFrom('', '/state', '/risk-assessment');

  it('decodes to the same id, in one segment, never a separator, query, fragment or literal dot segment', () => {
    fc.assert(
      fc.property(wellFormedId, suffix, (id, end) => {
        const path = eventPath(id, end);
        expect(path.startsWith('/event/')).toBe(true);
        expect(path.endsWith(end)).toBe(true);
        const segment = path.slice('/event/'.length, path.length - end.length);
        expect(segment).not.toMatch(/[/\\?#]/);
        expect(['.', '..']).not.toContain(segment);
        expect(decodeURIComponent(segment)).toBe(id);
        // A dot segment as URL parsers read it (%2E) only for the ids "." and ".." themselves,
        // which the client sends as written, never through URL resolution.
        if (/^(\.|%2e){1,2}$/i.test(segment)) expect(['.', '..']).toContain(id);
        expect(terminalSafe(path)).toBe(path);
      }),
      runs(2000),
    );
  });
});

describe('the config loader', () => {
  const expectCleanRefusal = (error: unknown) => {
    // A UsageError (exit 2) in one line and a hint, nothing a terminal would act on, no key echoed.
    expect(error).toBeInstanceOf(UsageError);
    const e = error as CliError;
    expect(e.exitCode).toBe(2);
    for (const text of [e.message, e.hint ?? '']) {
      expect(text).not.toMatch(FORBIDDEN);
      expect(text).not.toContain('sk-secret');
    }
  };

  /** Reads `text` as the config file: either a configuration, or a clean refusal. */
  const load = (text: string | Buffer) => {
    const t = tempEnv();
    mkdirSync(t.configDir, { recursive: true });
    writeFileSync(t.configPath, text);
    try {
      const file = readConfigFile(t.env);
      expect(Object.getPrototypeOf(file.profiles)).toBeNull();
      return file;
    } catch (error) {
      expectCleanRefusal(error);
      return undefined;
    }
  };

  it('any text at all: a configuration or a clean usage error, never anything else', () => {
    fc.assert(
      fc.property(fc.oneof(anyString, fc.string({ unit: 'binary', maxLength: 300 })), (text) => void load(text)),
      runs(300),
    );
  });

  it('any JSON at all, and config-shaped JSON with values of every type', () => {
    const value = fc.oneof(hostileJson, fc.constant('sk-secret\u001b[31m key'));
    const profile = fc.record(
      { baseUrl: value, apiKey: value, timeoutSeconds: value, retries: value, insecureHttp: value },
      { requiredKeys: [] },
    );
    const shaped = fc.record(
      {
        activeProfile: value,
        profiles: fc.oneof(
          value,
          fc.dictionary(
            fc.oneof(hostileString, fc.constantFrom('prod', '__proto__', 'sandbox')),
            fc.oneof(profile, value),
            { maxKeys: 3 },
          ),
        ),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.oneof(hostileJson, shaped), (v) => void load(JSON.stringify(v))),
      runs(500),
    );
  });

  it('every truncation of a valid file: a configuration or a clean usage error', () => {
    const t = tempEnv();
    writeConfigFile(t.env, {
      activeProfile: 'prod',
      profiles: Object.assign(Object.create(null) as Record<string, object>, {
        prod: {
          baseUrl: 'https://fraud.example.com',
          apiKey: 'sk-secret-0123456789',
          timeoutSeconds: 10,
          retries: 2,
          insecureHttp: false,
        },
      }),
    });
    const full = JSON.stringify(readConfigFile(t.env), null, 2);
    for (let cut = 0; cut <= full.length; cut++) load(full.slice(0, cut));
  });

  it('warns when others may read the file, and not when it is 0600', () => {
    notOnWindows(ON_WINDOWS.modes);
    const t = tempEnv();
    writeConfigFile(t.env, { profiles: Object.create(null) as Record<string, object> });
    const warnings: string[] = [];
    readConfigFile(t.env, { warn: (w) => warnings.push(w) });
    expect(warnings).toEqual([]);
    chmodSync(t.configPath, 0o644);
    readConfigFile(t.env, { warn: (w) => warnings.push(w) });
    expect(warnings).toEqual([
      `config file ${t.configPath} can be read by other users (mode 0644) and may hold API keys: chmod 600 ${t.configPath}`,
    ]);
  });
});
