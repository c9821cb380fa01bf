import { newProbeId } from '../../login/probe-id.js';
import type { ApiClient } from '../../api/api-client.js';
import { proxyFor } from '../../api/proxy.js';
import { CliError, ExitCode } from '../../errors/cli-error.js';
import { redactKey, redactKeyIn } from '../../render/redact.js';
import { createOutput } from '../../render/output.js';
import type { Settings } from '../../profiles/settings.js';
import { keyHint, settingHints, type SettingHints } from '../../profiles/setting-hints.js';
import { terminalSafe } from '../../render/terminal-text.js';
import {
  configFileChecks,
  dnsCheck,
  openApiCheck,
  proxyCheck,
  serviceChecks,
  sourceWords,
  tcpCheck,
  tlsCheck,
  type CheckResult,
} from './checks.js';
import type { DoctorDeps } from './deps.js';
import type { DoctorOptions } from './options.js';
import { renderChecks } from './render.js';

/*
 * `fraudctl doctor`: is the set-up working? One line per check, ✓ or ✗ with what to do, as
 * `gh auth status` and `brew doctor` do: the settings in force and where each came from, then
 * the network path (proxy, DNS, connection, TLS), then whether the URL answers as the service,
 * takes the key, agrees on the time, and how fast. Exit 0 only when nothing failed.
 */

const NETWORK_TIMEOUT_MS = 5_000;

/** `key`: the key in force (read from the credential store when it is there), or why it could not be read. */
function settingsChecks(
  settings: Settings,
  env: NodeJS.ProcessEnv,
  key: string | null,
  keyError: CliError | null,
  storeName: string,
): CheckResult[] {
  const s = settings.sources;
  const checks: CheckResult[] = [
    ...configFileChecks(env),
    {
      check: 'profile',
      title: 'profile',
      status: 'pass',
      detail: `${settings.profile} (${sourceWords(s.profile, 'FRAUDCTL_PROFILE', '--profile')})`,
    },
    {
      check: 'service-url',
      title: 'service URL',
      status: 'pass',
      detail:
        settings.baseUrl === null
          ? 'the embedded sandbox: a local service started for each command, not production'
          : `${terminalSafe(settings.baseUrl)} (${sourceWords(s.baseUrl, 'FRAUDCTL_BASE_URL', '--base-url')})`,
    },
  ];
  if (keyError !== null) {
    checks.push({
      check: 'api-key',
      title: 'API key',
      status: 'fail',
      detail: keyError.message,
      ...(keyError.hint ? { hint: keyError.hint } : {}),
    });
  } else if (key === null || key === '') {
    checks.push({
      check: 'api-key',
      title: 'API key',
      status: 'fail',
      detail: 'none for this profile',
      hint: keyHint(settings.profile, null),
    });
  } else {
    const source =
      settings.apiKeySource === 'sandbox-default'
        ? "the sandbox's key"
        : s.apiKey === 'credential-store'
          ? `from ${storeName}`
          : sourceWords(s.apiKey, 'FRAUDCTL_API_KEY');
    checks.push({ check: 'api-key', title: 'API key', status: 'pass', detail: `${redactKey(key)} (${source})` });
  }
  checks.push({
    check: 'timeout',
    title: 'timeout',
    status: 'info',
    detail: `${settings.timeoutMs / 1000} s (${sourceWords(s.timeout, 'FRAUDCTL_TIMEOUT', '--timeout')}); ${settings.retries} retries (${sourceWords(s.retries)})`,
  });
  return checks;
}

async function networkChecks(url: URL, env: NodeJS.ProcessEnv, hints: SettingHints): Promise<CheckResult[]> {
  const checks = [proxyCheck(url, env)];
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const via = proxyFor(url, env);
  if (via) {
    // Through a proxy, this machine resolves and connects to the proxy; the service is the proxy's business.
    let proxy: URL | null = null;
    try {
      proxy = new URL(via.proxy);
    } catch {
      return checks;
    }
    const proxyHost = proxy.hostname.replace(/^\[|\]$/g, '');
    const proxyPort = Number(proxy.port || (proxy.protocol === 'https:' ? 443 : 80));
    checks.push(
      await dnsCheck(proxyHost, via.from),
      await tcpCheck(proxyHost, proxyPort, NETWORK_TIMEOUT_MS, 'the proxy', via.from),
    );
    checks.push({
      check: 'tls',
      title: 'TLS',
      status: 'skip',
      detail: 'through the proxy: checked by the request below',
    });
    return checks;
  }
  const dns = await dnsCheck(host, hints.url);
  checks.push(dns);
  if (dns.status === 'fail') return checks;
  const tcp = await tcpCheck(host, port, NETWORK_TIMEOUT_MS, 'the service', hints.url);
  checks.push(tcp);
  if (tcp.status === 'fail') return checks;
  if (url.protocol === 'https:') checks.push(await tlsCheck(host, port, NETWORK_TIMEOUT_MS, env, hints.url));
  else if (!['localhost', '127.0.0.1', '::1'].includes(host)) {
    checks.push({
      check: 'tls',
      title: 'TLS',
      status: 'fail',
      detail: 'plain http:// to another machine: the API key travels in clear',
      hint: "use the service's https:// URL",
    });
  } else checks.push({ check: 'tls', title: 'TLS', status: 'skip', detail: 'plain http:// on this machine' });
  return checks;
}

export async function run(options: DoctorOptions, deps: DoctorDeps): Promise<void> {
  const output = createOutput(deps, { json: options.json, noColorFlag: options.noColor });
  const { env } = deps;
  const checks: CheckResult[] = [];
  let settings: Settings | null = null;
  /** The key sent to the service, which a server may echo back in what the checks quote of it. */
  let sent: string | null = null;
  try {
    settings = await deps.settings();
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    checks.push(...configFileChecks(env));
    checks.push({
      check: 'settings',
      title: 'settings',
      status: 'fail',
      detail: error.message,
      ...(error.hint ? { hint: error.hint } : {}),
    });
  }
  if (settings) {
    let key = settings.apiKey;
    let keyError: CliError | null = null;
    // A stored key for another URL than the one in force (FRAUDCTL_BASE_URL, --base-url) is
    // not sent, here either: the check says so, naming both URLs.
    if (settings.keyRefusal !== undefined) keyError = settings.keyRefusal;
    else if (settings.apiKeySource === 'credential-store') {
      try {
        key = await deps.apiKey();
      } catch (error) {
        if (!(error instanceof CliError)) throw error;
        keyError = error;
      }
    }
    checks.push(...settingsChecks(settings, env, key, keyError, deps.storeName));
    const hints = settingHints(settings.profile, settings.sources);
    if (settings.baseUrl !== null) checks.push(...(await networkChecks(new URL(settings.baseUrl), env, hints)));
    const reachable = !checks.some((c) => ['dns', 'connect', 'tls'].includes(c.check) && c.status === 'fail');
    let client: ApiClient | null = null;
    if (reachable && key) {
      try {
        client = await deps.client();
      } catch (error) {
        // The client refuses to be made for this URL (plain http:// to another machine): say so, as a check.
        if (!(error instanceof CliError)) throw error;
        checks.push({
          check: 'service',
          title: 'service',
          status: 'fail',
          detail: error.message,
          ...(error.hint ? { hint: error.hint } : {}),
        });
      }
    }
    if (client && key) {
      sent = key;
      const found = await serviceChecks(client, newProbeId(), hints);
      checks.push(found.service, found.key);
      if (found.service.status === 'pass') checks.push(await openApiCheck(client));
      checks.push(found.clock, found.roundTrip);
    }
  }

  // Every check's words go through the redaction every other command's do (redact.ts): the
  // service's answer (errorType, codes, request id, a page's title) may hold the key it was sent,
  // and doctor's output is the one a user pastes into a ticket.
  const shown = checks.map((c) => withoutKey(c, sent));
  const failed = shown.filter((c) => c.status === 'fail');
  if (output.json) output.printJson({ ok: failed.length === 0, sandbox: settings?.baseUrl === null, checks: shown });
  else output.print(renderChecks(shown, output.style));
  if (failed.length > 0) {
    throw new CliError(
      `${failed.length} of ${checks.length} checks failed: ${failed.map((c) => c.title).join(', ')}`,
      ExitCode.FAILURE,
    );
  }
}

function withoutKey(c: CheckResult, key: string | null): CheckResult {
  const hint = c.hint !== undefined ? { hint: redactKeyIn(c.hint, key) } : {};
  return { ...c, detail: redactKeyIn(c.detail, key), ...hint };
}
