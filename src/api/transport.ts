import { isIP } from 'node:net';
import { UsageError } from '../errors/cli-error.js';
import { NetworkError } from './api-error.js';
import type { FailureDescriber } from './failure-facts.js';
import { proxyFor } from './proxy.js';

/*
 * Transport rules the client holds to before anything is sent. Every request carries the API
 * key in a header, so plain http:// is allowed only where the traffic cannot leave the machine
 * (a loopback address) or where the user said, by a flag or profile setting named so nobody sets
 * it by accident, that the path is trusted (the insecure-http setting: an SSH tunnel, a sidecar).
 * TLS certificates are verified by Node against its CA store (plus NODE_EXTRA_CA_CERTS for a
 * private CA); there is no option to turn verification off. The words of a refusal are the
 * describer's (src/failures/): this file only decides.
 */

type Describe = Pick<FailureDescriber, 'plainHttp' | 'hostNotFound'>;

/** localhost, 127.0.0.0/8, ::1 (and ::ffff:127.x): traffic that stays on this machine. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host === '::1' || host === '0:0:0:0:0:0:0:1') return true;
  const v4 = /^(?:::ffff:)?(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  return v4 !== null && v4[1] === '127';
}

/** Refuses a base URL that would send the key in clear text over the network (exit 2), unless `insecureHttp`. */
export function checkTransport(baseUrl: string, insecureHttp: boolean, describe: Pick<Describe, 'plainHttp'>): void {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return; // the settings already refused it; nothing is sent to a URL that does not parse
  }
  if (url.protocol !== 'http:' || insecureHttp || isLoopbackHost(url.hostname)) return;
  const said = describe.plainHttp(url.host);
  throw new UsageError(said.message, said.hint);
}

/**
 * checkTransport, but a host name that does not resolve is reported as that first: a mistyped
 * `http://locahost:8787` gets "cannot find host locahost", not advice about insecure http that
 * would not help. The look-up sends nothing to the host, so no key travels in clear either way;
 * a name that resolves is refused as before. Through a proxy the proxy resolves names (and the
 * key would reach it in clear), so the refusal stands as it is.
 */
export async function checkTransportResolving(
  baseUrl: string,
  insecureHttp: boolean,
  describe: Describe,
  env: NodeJS.ProcessEnv,
): Promise<void> {
  try {
    checkTransport(baseUrl, insecureHttp, describe);
  } catch (refusal) {
    const url = new URL(baseUrl);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) || proxyFor(url, env) !== null) throw refusal;
    // Taken here, not imported: only this refusal needs it (start-up, see ARCHITECTURE.md).
    const { lookup } = process.getBuiltinModule('node:dns/promises');
    try {
      await lookup(host);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NODATA' || code === 'EAI_NONAME') {
        const said = describe.hostNotFound(host);
        throw new NetworkError(said.message, 'dns', false, said.hint);
      }
    }
    throw refusal;
  }
}
