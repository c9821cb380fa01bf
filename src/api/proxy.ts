/*
 * Which proxy a request goes through, from HTTPS_PROXY, HTTP_PROXY and NO_PROXY (either case),
 * decided by the same rules as undici's EnvHttpProxyAgent, which the client sends through: so
 * doctor, and an error that blames the proxy, name the proxy the request really went to.
 */

export interface ProxyChoice {
  /** The proxy's URL as the variable has it (it may hold a password: show it with `proxyShown`). */
  proxy: string;
  /** The variable it came from: HTTPS_PROXY, https_proxy, HTTP_PROXY, http_proxy. */
  from: string;
}

export interface ProxySettings {
  http: ProxyChoice | null;
  https: ProxyChoice | null;
  noProxy: string;
}

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 };

/** The variables in force: an empty one counts as unset; https:// falls back to HTTP_PROXY. */
export function proxySettings(env: NodeJS.ProcessEnv): ProxySettings {
  const pick = (...names: string[]): ProxyChoice | null => {
    const name = names.find((n) => env[n] !== undefined && env[n] !== '');
    return name ? { proxy: env[name]!, from: name } : null;
  };
  const http = pick('HTTP_PROXY', 'http_proxy');
  return { http, https: pick('HTTPS_PROXY', 'https_proxy') ?? http, noProxy: env.NO_PROXY ?? env.no_proxy ?? '' };
}

/** The proxy a request to `url` goes through, or null (none set, or NO_PROXY exempts the host). */
export function proxyFor(url: URL, env: NodeJS.ProcessEnv): ProxyChoice | null {
  const settings = proxySettings(env);
  const chosen = url.protocol === 'https:' ? settings.https : settings.http;
  if (!chosen) return null;
  // As undici: the host with IPv6 brackets kept, lower case; an entry's port must match when it has one.
  const host = url.host.replace(/:\d*$/, '').toLowerCase();
  const port = Number.parseInt(url.port, 10) || DEFAULT_PORTS[url.protocol] || 0;
  const entries = settings.noProxy.split(/[,\s]/).filter(Boolean);
  if (settings.noProxy === '*') return null;
  const exempt = entries.some((entry) => {
    const parsed = /^(.+):(\d+)$/.exec(entry);
    const name = (parsed ? parsed[1]! : entry).replace(/^\*?\./, '').toLowerCase();
    if (parsed && Number.parseInt(parsed[2]!, 10) !== port) return false;
    return host === name || host.endsWith(`.${name}`);
  });
  return exempt ? null : chosen;
}

/** The proxy as it may be shown: its host and port, never a user name or password. */
export function proxyShown(proxy: string): string {
  try {
    const url = new URL(proxy);
    return url.host || proxy.replace(/^.*@/, '');
  } catch {
    // Not a URL: at least never the part before an @.
    return proxy.replace(/^.*@/, '');
  }
}
