import { describe, expect, it } from 'vitest';
import { failureWords, type WordsContext } from '../../src/failures/failure-words.js';
import { settingHints } from '../../src/profiles/setting-hints.js';

/*
 * The words of the client's failures, by profile and by where the key and URL came from: one
 * table. The client composes its messages and hints from these (src/api/ names no command).
 */

const fromFile = settingHints('prod', { apiKey: 'credential-store', baseUrl: 'file' });
const fromEnv = settingHints('prod', { apiKey: 'env', baseUrl: 'env' });

type Row = [
  string,
  WordsContext,
  { keyRefused: string; notTheService: string; urlSetting: string; allowInsecureHttp: string },
];

const TABLE: Row[] = [
  [
    'no profile, no setting sources (a client made without a session)',
    {},
    {
      keyRefused: 'check the key: run fraudctl login, or set FRAUDCTL_API_KEY',
      notTheService:
        "check --base-url or the profile's URL (fraudctl config get base-url): it should be the service's base address",
      urlSetting: '--base-url or the profile (fraudctl config list)',
      allowInsecureHttp: '--insecure-http or: fraudctl config set insecure-http true',
    },
  ],
  [
    'the built-in sandbox profile is never named',
    { profile: 'sandbox' },
    {
      keyRefused: 'check the key: run fraudctl login, or set FRAUDCTL_API_KEY',
      notTheService:
        "check --base-url or the profile's URL (fraudctl config get base-url): it should be the service's base address",
      urlSetting: '--base-url or the profile (fraudctl config list)',
      allowInsecureHttp: '--insecure-http or: fraudctl config set insecure-http true',
    },
  ],
  [
    'a profile of its own, no sources',
    { profile: 'prod' },
    {
      keyRefused: 'check the key: run fraudctl login --profile prod, or set FRAUDCTL_API_KEY',
      notTheService:
        "check --base-url or the profile's URL (fraudctl config get base-url --profile prod): it should be the service's base address",
      urlSetting: '--base-url or the profile (fraudctl config list)',
      allowInsecureHttp: '--insecure-http or: fraudctl config set insecure-http true --profile prod',
    },
  ],
  [
    'key and URL from the profile: the setting hints name them',
    { profile: 'prod', hints: fromFile },
    {
      keyRefused: fromFile.key,
      notTheService: `check ${fromFile.url}: it should be the service's base address`,
      urlSetting: fromFile.url,
      allowInsecureHttp: '--insecure-http or: fraudctl config set insecure-http true --profile prod',
    },
  ],
  [
    'key and URL from the environment: the variables are named',
    { profile: 'prod', hints: fromEnv },
    {
      keyRefused: fromEnv.key,
      notTheService: `check ${fromEnv.url}: it should be the service's base address`,
      urlSetting: fromEnv.url,
      allowInsecureHttp: '--insecure-http or: fraudctl config set insecure-http true --profile prod',
    },
  ],
];

describe('failureWords', () => {
  it.each(TABLE)('%s', (_name, context, expected) => {
    const words = failureWords(context);
    expect({
      keyRefused: words.keyRefused,
      notTheService: words.notTheService,
      urlSetting: words.urlSetting,
      allowInsecureHttp: words.allowInsecureHttp,
    }).toEqual(expected);
  });

  it('names the commands and options every hint points to', () => {
    const words = failureWords({ profile: 'prod' });
    expect([
      words.urlOption,
      words.timeoutOption,
      words.stateHelp,
      words.showEvent('evt-1'),
      words.budgetSpent,
    ]).toEqual([
      '--base-url',
      '--timeout',
      'fraudctl set-state --help',
      'fraudctl show evt-1',
      'run the batch again later with --resume',
    ]);
  });
});
