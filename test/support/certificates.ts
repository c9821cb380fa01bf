import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { join } from 'node:path';
import { generate } from 'selfsigned';

/*
 * Certificates made by the tests themselves (no network, nothing from apt): a private CA, and
 * server certificates it signs — valid for localhost, expired, or for another name. EC keys,
 * so that generating them takes milliseconds.
 */

export interface Pem {
  key: string;
  cert: string;
}

export interface TestPki {
  ca: Pem;
  /** The CA certificate as a file, for NODE_EXTRA_CA_CERTS. */
  caFile: string;
  localhost: Pem;
  expired: Pem;
  otherName: Pem;
}

const DAY = 24 * 60 * 60 * 1000;

async function serverCert(
  ca: Pem,
  names: { dns?: string[]; ips?: string[] },
  validity: { from: Date; to: Date },
): Promise<Pem> {
  const cn = names.dns?.[0] ?? names.ips?.[0] ?? 'server';
  const made = await generate([{ name: 'commonName', value: cn }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notBeforeDate: validity.from,
    notAfterDate: validity.to,
    ca,
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      {
        name: 'subjectAltName',
        altNames: [
          ...(names.dns ?? []).map((value) => ({ type: 2 as const, value })),
          ...(names.ips ?? []).map((ip) => ({ type: 7 as const, ip })),
        ],
      },
    ],
  });
  return { key: made.private, cert: made.cert };
}

export async function makeTestPki(dir: string): Promise<TestPki> {
  const now = Date.now();
  const made = await generate([{ name: 'commonName', value: 'fraudctl test CA' }], {
    keyType: 'ec',
    algorithm: 'sha256',
    notBeforeDate: new Date(now - DAY),
    notAfterDate: new Date(now + 30 * DAY),
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, digitalSignature: true, critical: true },
    ],
  });
  const ca = { key: made.private, cert: made.cert };
  const caFile = join(dir, 'test-ca.pem');
  writeFileSync(caFile, ca.cert);
  const valid = { from: new Date(now - DAY), to: new Date(now + 30 * DAY) };
  const [localhost, expired, otherName] = await Promise.all([
    serverCert(ca, { dns: ['localhost'], ips: ['127.0.0.1'] }, valid),
    serverCert(
      ca,
      { dns: ['localhost'], ips: ['127.0.0.1'] },
      { from: new Date(now - 60 * DAY), to: new Date(now - 30 * DAY) },
    ),
    serverCert(ca, { dns: ['fraud.other.example'] }, valid),
  ]);
  return { ca, caFile, localhost, expired, otherName };
}

export interface TlsServer {
  /** https://localhost:PORT */
  url: string;
  port: number;
  /** Requests that got past the handshake. */
  requests: number;
  /** TCP connections made to it (a refused certificate is not tried again). */
  connections: number;
  close(): Promise<void>;
}

/** An https server on 127.0.0.1 that answers every request with the service's 404 for an unknown event. */
export async function startTlsServer(pem: Pem): Promise<TlsServer> {
  let requests = 0;
  let connections = 0;
  const server: Server = createServer({ key: pem.key, cert: pem.cert }, (req, res) => {
    requests++;
    req.resume();
    const body = JSON.stringify({ requestId: 'tls-1', errorType: 'NOT_FOUND', errorCodes: ['EVENT_NOT_FOUND'] });
    res.writeHead(404, { 'content-type': 'application/json', 'x-request-id': 'tls-1' });
    res.end(body);
  });
  // A client that gives up on the certificate ends the handshake: not an error of the server's.
  server.on('tlsClientError', () => {});
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://localhost:${port}`,
    port,
    get requests() {
      return requests;
    },
    get connections() {
      return connections;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * TLS in front of a plain-HTTP service (the sandbox): https://localhost:PORT, each connection
 * decrypted and piped to `target` (http://127.0.0.1:PORT), as a load balancer terminating TLS
 * would. `connections` counts the TLS connections made to it.
 */
export async function startTlsFront(pem: Pem, target: string): Promise<TlsServer> {
  const { hostname, port: targetPort } = new URL(target);
  let connections = 0;
  const sockets = new Set<Socket>();
  const server = createTlsServer({ key: pem.key, cert: pem.cert }, (client) => {
    const upstream = connect(Number(targetPort), hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    }
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.pipe(upstream).pipe(client);
  });
  server.on('tlsClientError', () => {});
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://localhost:${port}`,
    port,
    requests: 0,
    get connections() {
      return connections;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
