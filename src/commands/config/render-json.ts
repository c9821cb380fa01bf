import { NOT_SET_LABEL, type ProfileListing } from '../../profiles/stored-profiles.js';

/**
 * A profile as `--json` gives it: values, never placeholders. An absent URL or key is null; the
 * built-in profile says it is the embedded sandbox in a field of its own; a key is shown redacted
 * only when the config file holds it (`keyStorage` says where any other is).
 */
export function profileJson(p: ProfileListing) {
  return {
    name: p.name,
    active: p.active,
    baseUrl: p.builtIn || p.baseUrl === NOT_SET_LABEL ? null : p.baseUrl,
    embeddedSandbox: p.builtIn,
    apiKey: p.keyStorage === 'file' ? p.apiKey : null,
    keyStorage: p.keyStorage,
    timeoutSeconds: p.timeoutSeconds,
    retries: p.retries,
    insecureHttp: p.insecureHttp,
    analyst: p.analyst,
    reasons: p.reasons,
    requireReason: p.requireReason,
    builtIn: p.builtIn,
  };
}
