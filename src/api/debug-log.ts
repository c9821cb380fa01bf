/** Headers as they may be shown (the debug log, a dry run): the API key replaced, never shown in part. */
export function redactHeaders(headers: Record<string, string>): Record<string, string> {
  const shown = { ...headers };
  if (shown['x-client-api-key'] !== undefined) shown['x-client-api-key'] = '[redacted]';
  return shown;
}
