import { UsageError } from '../errors/cli-error.js';

/*
 * Transport rules the client holds to before anything is sent. Every request carries the API
 * key in a header, so plain http:// is allowed only where the traffic cannot leave the machine
 * (a loopback address) or where the user said, by a flag or profile setting named so nobody sets
 * it by accident, that the path is trusted (--insecure-http: an SSH tunnel, a sidecar).
 * TLS certificates are verified by Node against its CA store (plus NODE_EXTRA_CA_CERTS for a
 * private CA); there is no option to turn verification off.
 */

/** localhost, 127.0.0.0/8, ::1 (and ::ffff:127.x): traffic that stays on this machine. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host === '::1' || host === '0:0:0:0:0:0:0:1') return true;
  const v4 = /^(?:::ffff:)?(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  return v4 !== null && v4[1] === '127';
}

/** Refuses a base URL that would send the key in clear text over the network (exit 2), unless `insecureHttp`. */
export function checkTransport(baseUrl: string, insecureHttp: boolean, profile?: string): void {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return; // the settings already refused it; nothing is sent to a URL that does not parse
  }
  if (url.protocol !== 'http:' || insecureHttp || isLoopbackHost(url.hostname)) return;
  const forProfile = profile && profile !== 'sandbox' ? ` --profile ${profile}` : '';
  throw new UsageError(
    `refusing to send the API key in clear text to ${url.host}: the URL is http://, and that host is not this machine`,
    `use https://; only if the network path is trusted (a tunnel), allow it with --insecure-http or: fraudctl config set insecure-http true${forProfile}`,
  );
}
