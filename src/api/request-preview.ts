import { VERSION } from '../process/version.js';
import { redactHeaders } from './debug-log.js';

/* The headers of every request, and a request shown without being sent (a dry run), key redacted. */

export function requestHeaders(apiKey: string | null, withBody: boolean): Record<string, string> {
  const headers: Record<string, string> = { accept: 'application/json', 'user-agent': `fraudctl/${VERSION}` };
  if (apiKey) headers['x-client-api-key'] = apiKey;
  if (withBody) headers['content-type'] = 'application/json';
  return headers;
}

export interface RequestPreview {
  method: string;
  /** The resource's path, as the interface names it (`/event/ord-1/state`), under the base URL. */
  path: string;
  /** The whole URL; null for the embedded sandbox, which has none until a command starts it. */
  url: string | null;
  /** Where it would go, in words: the base URL, or "the embedded sandbox". */
  to: string;
  headers: Record<string, string>;
  body?: unknown;
}

/** The request a call would send, key redacted, without sending it (a dry run). `null` base: the embedded sandbox. */
export function previewRequest(
  baseUrl: string | null,
  apiKey: string | null,
  method: string,
  path: string,
  body?: unknown,
  profile?: string,
): RequestPreview {
  const base = baseUrl === null ? null : new URL(baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
  const url = base === null ? null : `${base.origin}${base.pathname}${path.replace(/^\//, '')}`;
  const place =
    base === null
      ? 'the embedded sandbox (a local service on a loopback port, not production)'
      : `${base.origin}${base.pathname}`;
  const to = profile === undefined ? place : `${place}, profile ${profile}`;
  return {
    method,
    path,
    url,
    to,
    headers: redactHeaders(requestHeaders(apiKey, body !== undefined)),
    ...(body !== undefined ? { body } : {}),
  };
}
