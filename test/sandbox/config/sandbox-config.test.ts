import { writeFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultSandboxConfig, keyDigest, loadSandboxConfig } from '../../../src/sandbox/config/sandbox-config.js';
import { compileRules } from '../../../src/sandbox/scoring/rules.js';
import { SandboxError } from '../../../src/sandbox/sandbox-error.js';
import { tempDir } from '../../support/sandbox.js';

const tmp = tempDir();
afterAll(() => tmp.remove());

function file(name: string, content: unknown): string {
  const path = join(tmp.dir, name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

describe('loadSandboxConfig', () => {
  it('gives the demo merchant FRAUDCTL_SANDBOX_KEY, or the well-known key without it', () => {
    const withEnv = loadSandboxConfig(undefined, { FRAUDCTL_SANDBOX_KEY: 'my-own-secret-key' });
    expect(withEnv.merchants[0]).toMatchObject({ id: 'demo', usesWellKnownKey: false });
    expect(withEnv.merchants[0]!.keyDigest.equals(keyDigest('my-own-secret-key'))).toBe(true);
    const plain = loadSandboxConfig(undefined, {});
    expect(plain.merchants[0]).toMatchObject({ id: 'demo', usesWellKnownKey: true });
    expect(plain.source).toBe('built-in defaults');
  });

  it('keeps the defaults for keys a file leaves out', () => {
    const loaded = loadSandboxConfig(file('partial.json', { thresholds: { review: 40, decline: 80 } }), {});
    expect(loaded.config.thresholds).toEqual({ review: 40, decline: 80 });
    expect(loaded.config.rules).toEqual(defaultSandboxConfig().rules);
  });

  it.each([
    ['missing', join('/nonexistent', 'x.json'), /cannot read sandbox config .*ENOENT/],
    ['not JSON', 'not json', /is not valid JSON/],
    ['an array', [], /must be a JSON object/],
    ['an unknown key', { rulez: [] }, /rulez/],
    [
      'a rule with a bad severity',
      { rules: [{ ...defaultSandboxConfig().rules[0], severity: 'EXTREME' }] },
      /\/rules\/0\/severity/,
    ],
    [
      'a base currency without a rate',
      { baseCurrency: 'CHF', rates: { EUR: 1 } },
      /base currency CHF has no entry in rates/,
    ],
    ['review above decline', { thresholds: { review: 80, decline: 70 } }, /thresholds.review/],
    ['a merchant without a key', { merchants: [{ id: 'm1' }] }, /merchant m1 has no key/],
    [
      'two merchants with one key',
      {
        merchants: [
          { id: 'a', apiKey: 'same-key-123' },
          { id: 'b', apiKey: 'same-key-123' },
        ],
      },
      /share one API key/,
    ],
    [
      'two merchants with one id',
      {
        merchants: [
          { id: 'shop', apiKey: 'shop-key-aaaa' },
          { id: 'shop', apiKey: 'shop-key-bbbb' },
        ],
      },
      /merchant id shop appears twice/,
    ],
  ])('refuses a config that is %s, saying what is wrong', (name, content, message) => {
    const path = typeof content === 'string' && isAbsolute(content) ? content : file(`${name}.json`, content);
    let error: unknown;
    try {
      loadSandboxConfig(path, {});
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SandboxError);
    expect((error as SandboxError).kind).toBe('input');
    expect((error as Error).message).toMatch(message);
  });
});

describe('compileRules', () => {
  it('refuses a velocity over a field the database does not index', () => {
    const rule = { ...defaultSandboxConfig().rules[0]!, id: 'v', when: { '>': [{ velocity: ['userName', 60] }, 1] } };
    expect(() => compileRules([rule])).toThrow(/rule v: velocity takes \[field, seconds, atMost\?\]/);
    const capped = { ...rule, when: { '>': [{ velocity: ['userIp', 60, 0] }, 1] } };
    expect(() => compileRules([capped])).toThrow(/rule v: velocity takes/);
  });

  it('refuses an operation JsonLogic does not know', () => {
    const rule = { ...defaultSandboxConfig().rules[0]!, id: 'x', when: { frobnicate: [1] } };
    expect(() => compileRules([rule])).toThrow(/rule x/);
  });
});
