/*
 * The id of an event that cannot exist, asked for by `login` and `doctor` to check a key: the
 * service's own 404 for it means the key works (and the URL is the service).
 */

// node:crypto is taken when needed, not imported: every client command loads the API client,
// and loading node:crypto has a start-up cost (docs/decisions/node-crypto-where-used.md).
export const newProbeId = () => `fraudctl-login-check-${process.getBuiltinModule('node:crypto').randomUUID()}`;
