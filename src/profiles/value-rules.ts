import { UsageError } from '../errors/cli-error.js';
import { terminalSafe } from '../render/terminal-text.js';
import { sym } from '../render/symbols.js';

/*
 * The rules for each profile value, in one place, so that the config file, the flags, the
 * environment and `fraudctl config set` accept exactly the same things. Each check returns
 * either the value (normalised) or a predicate ("must be …") that the caller puts after the
 * name of where the value came from: `--timeout must be …`, `FRAUDCTL_TIMEOUT must be …`,
 * `config file /x/config.json: profiles.prod.timeoutSeconds must be …`.
 */

export type Checked<T> = { ok: true; value: T } | { ok: false; problem: string };

const ok = <T>(value: T): Checked<T> => ({ ok: true, value });
const bad = <T>(problem: string): Checked<T> => ({ ok: false, problem });

/** The built-in profile: the embedded local sandbox. It can hold a key, a timeout and retries, never a URL. */
export const SANDBOX_PROFILE = 'sandbox';

/*
 * The key of the sandbox's demo merchant when FRAUDCTL_SANDBOX_KEY is not set. It is the same
 * string as WELL_KNOWN_SANDBOX_KEY in src/sandbox/config/sandbox-config.ts (a test pins the two
 * together); it is not imported from there because that module loads TypeBox and the sandbox's
 * default configuration, which every client command would then pay for at start-up.
 */
export const SANDBOX_DEFAULT_KEY = 'sandbox-demo-key';

/*
 * A key kept in the operating system's credential store (src/credentials/credential-store.ts) is
 * one entry: this service name, and an account naming the profile and the URL it was logged in
 * to, so that two config directories with a profile of the same name for two services do not
 * share an entry. The account is recorded in the config file, so that a later change of the
 * profile's URL does not lose the key.
 */
export const CREDENTIAL_SERVICE = 'fraudctl';

export function credentialAccount(profile: string, baseUrl: string | null): string {
  return `${profile}@${baseUrl ?? 'embedded-sandbox'}`;
}

/** An account as fraudctl writes one: printable ASCII, no spaces, of a sensible length. */
export function checkCredentialAccount(value: unknown): Checked<string> {
  return typeof value === 'string' && /^[\x21-\x7e]{1,2100}$/.test(value)
    ? ok(value)
    : bad('must be a string of 1 to 2100 printable characters without spaces');
}

export const DEFAULT_TIMEOUT_SECONDS = 30;
export const DEFAULT_RETRIES = 3;
/** A day. Also keeps the deadline far below setTimeout's limit (2^31-1 ms), past which Node fires at once. */
export const MAX_TIMEOUT_SECONDS = 86_400;
export const MAX_RETRIES = 10;

const PROFILE_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const NAME_RULE = 'must be 1 to 64 letters, digits, _ or -';

export function checkProfileName(name: string): Checked<string> {
  return PROFILE_NAME.test(name) ? ok(name) : bad(NAME_RULE);
}

/** A value quoted for a one-line message: control characters escaped by JSON, C1 and bidi controls too. */
export function quote(value: string): string {
  return terminalSafe(JSON.stringify(value));
}

/** A URL as it may appear in a message: whatever sits between `//` and `@` (a user or password) masked. */
export function showUrl(value: string): string {
  return quote(value.replace(/\/\/[^/?#]*@/, '//***@'));
}

/** An absolute http(s) URL without credentials, query or fragment; returned without a trailing slash. */
export function checkBaseUrl(value: string): Checked<string> {
  const must = 'must be an absolute http:// or https:// URL, such as https://fraud.example.com';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return bad(must);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return bad(must);
  if (url.username !== '' || url.password !== '')
    return bad('must not contain a user name or password: the key is stored with fraudctl login');
  if (url.search !== '' || url.hash !== '')
    return bad(`must not have a query (?${sym.ellipsis}) or fragment (#${sym.ellipsis})`);
  return ok(url.href.replace(/\/+$/, ''));
}

/** A base URL as a profile holds it (checkBaseUrl's form), or as given when it is not one (for messages). */
export function normalisedBaseUrl(url: string): string {
  const checked = checkBaseUrl(url);
  return checked.ok ? checked.value : url;
}

/**
 * Whether two base URLs name the same service, the comparison that binds a stored key to its
 * URL: both as checkBaseUrl normalises them (WHATWG URL: scheme and host in lower case, the
 * default port dropped, an IDN host in punycode, `.`/`..` segments resolved), without trailing
 * slashes; the path is compared as written (paths are case-sensitive). Two names for one machine
 * (localhost, 127.0.0.1) are two services, as they are for gh. Anything that is not a base URL
 * (undefined, invalid) is the same as nothing.
 */
export function sameServiceUrl(a: string | undefined, b: string | undefined): boolean {
  if (a === undefined || b === undefined) return false;
  const [x, y] = [checkBaseUrl(a), checkBaseUrl(b)];
  return x.ok && y.ok && x.value === y.value;
}

/** What an API key may be: it goes into an HTTP header, so printable ASCII without spaces. Never quoted back. */
export function checkApiKey(value: unknown): Checked<string> {
  return typeof value === 'string' && /^[\x21-\x7e]+$/.test(value)
    ? ok(value)
    : bad('must be a non-empty string of printable characters without spaces or line breaks');
}

const TIMEOUT_RULE = `must be a positive number of seconds, at most ${MAX_TIMEOUT_SECONDS}`;

export function checkTimeoutSeconds(value: unknown): Checked<number> {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 && value <= MAX_TIMEOUT_SECONDS
    ? ok(value)
    : bad(TIMEOUT_RULE);
}

/** Text from the environment or the command line: plain decimal digits only ("1e3", "0x10", " " are refused). */
export function parseTimeoutSeconds(text: string): Checked<number> {
  const trimmed = text.trim();
  return /^\d+(\.\d+)?$|^\.\d+$/.test(trimmed) ? checkTimeoutSeconds(Number(trimmed)) : bad(TIMEOUT_RULE);
}

const RETRIES_RULE = `must be a whole number from 0 to ${MAX_RETRIES}`;

export function checkRetries(value: unknown): Checked<number> {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_RETRIES
    ? ok(value)
    : bad(RETRIES_RULE);
}

export function parseRetries(text: string): Checked<number> {
  const trimmed = text.trim();
  return /^\d{1,3}$/.test(trimmed) ? checkRetries(Number(trimmed)) : bad(RETRIES_RULE);
}

/*
 * The analyst a profile's action-log lines name (`config set analyst NAME`): declared, not
 * authenticated (src/action-log/). One line of printable text, so that a log line and a report
 * show it as typed: no control characters (C0, C1, bidi), no spaces at either end.
 */
const ANALYST_RULE =
  'must be 1 to 64 printable characters (letters, digits, spaces, punctuation), without control characters or spaces at either end';
// eslint-disable-next-line no-control-regex -- refusing control characters is the point
const ANALYST_FORBIDDEN = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

export function checkAnalyst(value: unknown): Checked<string> {
  if (
    typeof value !== 'string' ||
    value === '' ||
    value.trim() !== value ||
    [...value].length > 64 ||
    ANALYST_FORBIDDEN.test(value)
  )
    return bad(ANALYST_RULE);
  return ok(value);
}

/** Profiles are looked up as own properties only: a profile called "constructor" is not Object.prototype's. */
export function ownProfile<T>(profiles: Record<string, T>, name: string): T | undefined {
  return Object.hasOwn(profiles, name) ? profiles[name] : undefined;
}

/** The checked value, or a UsageError: `<subject> <problem> (got <shown>)`. */
export function orThrow<T>(checked: Checked<T>, subject: string, shown: string, hint?: string): T {
  if (checked.ok) return checked.value;
  throw new UsageError(`${subject} ${checked.problem} (got ${shown})`, hint);
}
