import { lookup } from 'node:dns/promises';
import { statSync } from 'node:fs';
import { dirname } from 'node:path';
import { isIP, connect as tcpConnect } from 'node:net';
import { connect as tlsConnect, type PeerCertificate } from 'node:tls';
import type { ApiClient } from '../../api/api-client.js';
import { proxyFor } from '../../api/proxy.js';
import { CliError } from '../../errors/cli-error.js';
import { answerMeaning, callFailure } from '../../failures/failure-kind.js';
import { eventPath } from '../../contract/paths.js';
import { MODES_NOT_CHECKED_ON_WINDOWS, configFilePath, configPermissionProblems } from '../../profiles/config-file.js';
import type { SettingSource } from '../../profiles/settings.js';
import type { SettingHints } from '../../profiles/setting-hints.js';
import { terminalSafe, truncate } from '../../render/terminal-text.js';
import { sym } from '../../render/symbols.js';

/*
 * The checks of `fraudctl doctor`, each a small function returning a result the renderer prints
 * (so --json comes for free). A check says what it found in one line and, when something is
 * wrong, what to do; it never throws. What it quotes of an answer may hold the key a server echoed
 * back: run.ts takes it out of every check before printing.
 */

export type CheckStatus = 'pass' | 'fail' | 'skip' | 'info';

export interface CheckResult {
  /** A stable name for scripts (`--json`). */
  check: string;
  /** The line's label. */
  title: string;
  status: CheckStatus;
  detail: string;
  hint?: string;
}

const result = (check: string, title: string, status: CheckStatus, detail: string, hint?: string): CheckResult => ({
  check,
  title,
  status,
  detail,
  ...(hint ? { hint } : {}),
});

const SOURCE_WORDS: Record<SettingSource, string> = {
  flag: 'from a flag',
  env: 'from the environment',
  file: 'from the config file',
  default: 'default',
};

export function sourceWords(source: SettingSource | null, envName?: string, flag?: string): string {
  if (source === 'env' && envName) return `from ${envName}`;
  if (source === 'flag' && flag) return `from ${flag}`;
  return source ? SOURCE_WORDS[source] : 'not set';
}

/**
 * The config directory and file: where they are, and that only their owner can change the one
 * and read the other (it holds keys; see configPermissionProblems). ✗ with the chmod that fixes it.
 * On Windows the modes Node reports mean nothing (0666 for any writable file): skipped, saying why.
 */
export function configFileChecks(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): CheckResult[] {
  const path = configFilePath(env);
  const dir = dirname(path);
  const problems = configPermissionProblems(env, platform);
  const checks: CheckResult[] = [];
  const modeWords = (p: string): string | null => {
    try {
      return `mode ${(statSync(p).mode & 0o7777).toString(8).padStart(3, '0')}`;
    } catch {
      return null;
    }
  };
  for (const [what, title, shown] of [
    ['config-directory', 'config directory', dir],
    ['config-file', 'config file', path],
  ] as const) {
    const problem = problems.find((p) => p.what === what);
    const mode = modeWords(shown);
    if (problem) checks.push(result(what, title, 'fail', `${problem.path} ${problem.problem}`, problem.fix));
    else if (mode === null)
      checks.push(result(what, title, 'info', `${terminalSafe(shown)} (none yet: nothing configured)`));
    else if (platform === 'win32')
      checks.push(result(what, title, 'skip', `${terminalSafe(shown)} (${MODES_NOT_CHECKED_ON_WINDOWS})`));
    else checks.push(result(what, title, 'pass', `${terminalSafe(shown)} (${mode})`));
  }
  return checks;
}

export function proxyCheck(url: URL, env: NodeJS.ProcessEnv): CheckResult {
  const via = proxyFor(url, env);
  if (!via)
    return result('proxy', 'proxy', 'info', env.NO_PROXY || env.no_proxy ? 'none for this host (NO_PROXY)' : 'none');
  let shown = via.proxy;
  try {
    const p = new URL(via.proxy);
    // A proxy URL may carry a password: never shown.
    if (p.password || p.username) p.username = p.password = '';
    shown = p.toString();
  } catch {
    return result('proxy', 'proxy', 'fail', `${via.from} is not a URL`, `set it to e.g. http://proxy.example:3128`);
  }
  return result('proxy', 'proxy', 'info', `${terminalSafe(shown)} (${via.from})`);
}

/** `where`: where the host name is changed (setting-hints.ts for the service, the variable for a proxy). */
export async function dnsCheck(host: string, where: string): Promise<CheckResult> {
  if (isIP(host.replace(/^\[|\]$/g, ''))) return result('dns', 'DNS', 'skip', `${host} is an address`);
  const started = performance.now();
  try {
    const addresses = await lookup(host, { all: true });
    const ms = Math.round(performance.now() - started);
    return result(
      'dns',
      'DNS',
      'pass',
      `${host} ${sym.arrow} ${addresses
        .map((a) => a.address)
        .slice(0, 3)
        .join(', ')} (${ms} ms)`,
    );
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? 'failed';
    return result(
      'dns',
      'DNS',
      'fail',
      `${host} does not resolve (${code})`,
      `check the host name in ${where}, or this machine's DNS`,
    );
  }
}

/** To `host:port`, which is `what` ("the service", "the proxy"); `where`: where it is changed (setting-hints.ts, or the proxy's variable). */
export function tcpCheck(
  host: string,
  port: number,
  timeoutMs: number,
  what: string,
  where: string,
): Promise<CheckResult> {
  return new Promise((resolve) => {
    const started = performance.now();
    const socket = tcpConnect({ host, port });
    const done = (r: CheckResult) => {
      socket.destroy();
      resolve(r);
    };
    const check = `check ${where}`;
    socket.setTimeout(timeoutMs, () =>
      done(
        result(
          'connect',
          'connection',
          'fail',
          `no answer from ${host}:${port} within ${timeoutMs / 1000} s`,
          `a firewall, or the wrong port: ${check}`,
        ),
      ),
    );
    socket.once('connect', () =>
      done(result('connect', 'connection', 'pass', `${host}:${port} in ${Math.round(performance.now() - started)} ms`)),
    );
    socket.once('error', (e: NodeJS.ErrnoException) => {
      const hint =
        e.code === 'ECONNREFUSED'
          ? `nothing listens there: is ${what} up, and is the port right? ${check}`
          : `${check}, and the network`;
      done(result('connect', 'connection', 'fail', `${host}:${port}: ${e.code ?? e.message}`, hint));
    });
  });
}

const UNTRUSTED = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
]);

function describeCert(cert: PeerCertificate): string {
  const name = (n: { CN?: string | string[]; O?: string | string[] } | undefined) =>
    terminalSafe(truncate(String(n?.CN ?? n?.O ?? '?'), 80));
  return `for ${name(cert.subject)}, issued by ${name(cert.issuer)}, valid until ${cert.valid_to}`;
}

/** The TLS handshake as Node will do it (its CAs plus NODE_EXTRA_CA_CERTS), with the certificate it saw. */
export function tlsCheck(
  host: string,
  port: number,
  timeoutMs: number,
  env: NodeJS.ProcessEnv,
  where: string,
): Promise<CheckResult> {
  const extra = env.NODE_EXTRA_CA_CERTS
    ? `NODE_EXTRA_CA_CERTS is ${env.NODE_EXTRA_CA_CERTS}`
    : 'NODE_EXTRA_CA_CERTS is not set';
  return new Promise((resolve) => {
    const socket = tlsConnect({ host, port, servername: isIP(host) ? undefined : host, rejectUnauthorized: false });
    const done = (r: CheckResult) => {
      socket.destroy();
      resolve(r);
    };
    socket.setTimeout(timeoutMs, () =>
      done(
        result(
          'tls',
          'TLS',
          'fail',
          `no TLS handshake with ${host}:${port} within ${timeoutMs / 1000} s`,
          'is this port TLS (https://) at all?',
        ),
      ),
    );
    socket.once('secureConnect', () => {
      const cert = socket.getPeerCertificate();
      const error = socket.authorizationError as unknown as Error | string | null;
      const code = error
        ? typeof error === 'string'
          ? error
          : ((error as NodeJS.ErrnoException).code ?? error.message)
        : null;
      if (!code)
        return done(
          result('tls', 'TLS', 'pass', `${socket.getProtocol() ?? 'TLS'}, certificate ${describeCert(cert)}`),
        );
      if (code === 'CERT_HAS_EXPIRED')
        return done(
          result(
            'tls',
            'TLS',
            'fail',
            `the certificate expired on ${cert.valid_to}`,
            'the service must renew it; nothing to change here',
          ),
        );
      if (code === 'ERR_TLS_CERT_ALTNAME_INVALID')
        return done(
          result(
            'tls',
            'TLS',
            'fail',
            `the certificate is not for ${host} (${describeCert(cert)})`,
            `check the host in ${where}`,
          ),
        );
      if (UNTRUSTED.has(code)) {
        return done(
          result(
            'tls',
            'TLS',
            'fail',
            `the certificate (${describeCert(cert)}) is not signed by a CA this machine trusts (${code})`,
            `for a private CA, point NODE_EXTRA_CA_CERTS at its PEM file (${extra})`,
          ),
        );
      }
      return done(result('tls', 'TLS', 'fail', `the certificate was refused (${terminalSafe(code)})`, extra));
    });
    socket.once('error', (e: NodeJS.ErrnoException) =>
      done(
        result(
          'tls',
          'TLS',
          'fail',
          `no TLS with ${host}:${port}: ${e.code ?? e.message}`,
          'is this port TLS (https://) at all?',
        ),
      ),
    );
  });
}

/** What one answer of the service says, read as the service's error shape when it is one. */
function errorShape(
  text: string,
  headers: Record<string, string | string[] | undefined>,
): { errorType: string; errorCodes: string[] } | null {
  const type = String(headers['content-type'] ?? '');
  if (!/json/i.test(type)) return null;
  try {
    const body = JSON.parse(text) as { errorType?: unknown; errorCodes?: unknown };
    if (typeof body.errorType !== 'string' || !Array.isArray(body.errorCodes)) return null;
    return { errorType: body.errorType, errorCodes: body.errorCodes.filter((c): c is string => typeof c === 'string') };
  } catch {
    return null;
  }
}

function looksLike(text: string, headers: Record<string, string | string[] | undefined>): string {
  const type = String(headers['content-type'] ?? 'no content type');
  if (/html/i.test(type) || /^\s*</.test(text)) return 'an HTML page';
  return terminalSafe(truncate(type, 60));
}

export interface ServiceFindings {
  service: CheckResult;
  key: CheckResult;
  clock: CheckResult;
  roundTrip: CheckResult;
}

/**
 * Asks for an event that cannot exist, three times: the service answers 404 in its error shape
 * (EVENT_NOT_FOUND) when the URL is right and the key accepted, 401/403 when the key is not; the
 * answers also give the clock's skew (Date) and the round-trip time.
 */
export async function serviceChecks(client: ApiClient, probeId: string, hints: SettingHints): Promise<ServiceFindings> {
  const times: number[] = [];
  let first: Awaited<ReturnType<ApiClient['probe']>>;
  try {
    first = await client.probe(eventPath(probeId));
    times.push(first.elapsedMs);
    for (let i = 0; i < 2; i++) times.push((await client.probe(eventPath(probeId))).elapsedMs);
  } catch (e) {
    // The client's errors are CliErrors whose messages are already safe to print. A proxy's
    // failure is the proxy's line, not the service's: the service was never reached.
    const failure = callFailure(e);
    const failed =
      failure?.kind === 'proxy'
        ? result('proxy-connect', 'through proxy', 'fail', failure.error.message, failure.error.hint)
        : result('service', 'service', 'fail', (e as Error).message, e instanceof CliError ? e.hint : undefined);
    const skipped = (check: string, title: string) => result(check, title, 'skip', 'no answer from the service');
    return {
      service: failed,
      key: skipped('api-key-accepted', 'key accepted'),
      clock: skipped('clock', 'clock'),
      roundTrip: skipped('round-trip', 'round trip'),
    };
  }
  const shape = errorShape(first.text, first.headers);
  const status = first.status;
  const codes = shape ? `${shape.errorType}${shape.errorCodes.length ? `: ${shape.errorCodes.join(', ')}` : ''}` : '';
  const shown = terminalSafe(truncate(codes, 120));
  const request = first.requestId ? `, request ${terminalSafe(truncate(first.requestId, 60))}` : '';
  let service: CheckResult;
  let key: CheckResult;
  const notService = (what: string) =>
    result(
      'service',
      'service',
      'fail',
      `this URL is not the fraud-screening service, or not its base path: GET /event/${sym.ellipsis} answered ${status} with ${what}`,
      `check the path of ${hints.url}`,
    );
  const keyUnknown = result('api-key-accepted', 'key accepted', 'skip', 'unknown until the URL answers as the service');
  // What the answer means is src/failures/' (by the one status table): its kind, and for a refusal what was refused.
  const { kind, refused } = status >= 400 ? answerMeaning(status, false) : { kind: null, refused: null };
  if (shape && kind === 'auth') {
    service = result(
      'service',
      'service',
      'pass',
      `answers in the service's error shape (${status} ${shown}${request})`,
    );
    key =
      refused === 'key'
        ? result(
            'api-key-accepted',
            'key accepted',
            'fail',
            `the service refused the key (${status} ${shown})`,
            hints.key,
          )
        : result(
            'api-key-accepted',
            'key accepted',
            'fail',
            `the key is known, but its merchant is blocked (${status} ${shown})`,
            "ask the service's operators why the merchant is blocked",
          );
  } else if (kind === 'not-found' && shape && !shape.errorCodes.some((c) => /ROUTE/i.test(c))) {
    service = result(
      'service',
      'service',
      'pass',
      `answers as the fraud-screening service (404 ${shown} for an event that does not exist${request})`,
    );
    key = result('api-key-accepted', 'key accepted', 'pass', 'the service looked for the event with it');
  } else if (kind === 'not-found') {
    service = notService(shape ? `a code that names a route (${shown})` : looksLike(first.text, first.headers));
    key = keyUnknown;
  } else {
    service = result(
      'service',
      'service',
      'fail',
      `GET /event/${sym.ellipsis} answered ${status}${shape ? ` ${shown}` : ` with ${looksLike(first.text, first.headers)}`}, where the service answers 404 for an event that does not exist`,
      kind === 'unavailable' ? 'the service is failing: try again later' : `check ${hints.url}`,
    );
    key = keyUnknown;
  }

  const date = first.headers.date;
  let clock: CheckResult;
  const serverTime = typeof date === 'string' ? Date.parse(date) : NaN;
  if (Number.isNaN(serverTime)) {
    clock = result('clock', 'clock', 'skip', 'the answer has no Date header');
  } else {
    // Date has whole seconds (the server's time was somewhere in [Date, Date + 1 s) when it
    // answered, half the round trip ago): the skew is known to about a second.
    const skew = Math.round((Date.now() - first.elapsedMs / 2 - (serverTime + 500)) / 1000);
    const words =
      Math.abs(skew) <= 1
        ? 'in step with the service (within a second)'
        : `${Math.abs(skew)} s ${skew > 0 ? 'ahead of' : 'behind'} the service`;
    clock =
      Math.abs(skew) <= 30
        ? result('clock', 'clock', 'pass', words)
        : result(
            'clock',
            'clock',
            'fail',
            words,
            'set the clock (NTP, e.g. timedatectl set-ntp true): event dates and Retry-After depend on it',
          );
  }
  times.sort((a, b) => a - b);
  const median = Math.round(times[Math.floor(times.length / 2)]!);
  const roundTrip = result('round-trip', 'round trip', 'info', `${median} ms (median of ${times.length})`);
  return { service, key, clock, roundTrip };
}

/** `/openapi.json`, when the service publishes it (the sandbox does; a real service may not). */
export async function openApiCheck(client: ApiClient): Promise<CheckResult> {
  try {
    const answer = await client.probe('/openapi.json');
    const doc =
      answer.status === 200
        ? (JSON.parse(answer.text) as { openapi?: unknown; info?: { title?: unknown; version?: unknown } })
        : null;
    if (doc && typeof doc.openapi === 'string') {
      const title = terminalSafe(truncate(String(doc.info?.title ?? 'untitled'), 80));
      return result(
        'openapi',
        'OpenAPI',
        'info',
        `${title} ${terminalSafe(truncate(String(doc.info?.version ?? ''), 20))} (OpenAPI ${terminalSafe(truncate(doc.openapi, 10))})`.replace(
          /\s+\(/,
          ' (',
        ),
      );
    }
    return result('openapi', 'OpenAPI', 'info', `not served (${answer.status}): a real service may not publish it`);
  } catch {
    return result('openapi', 'OpenAPI', 'info', 'not served');
  }
}
