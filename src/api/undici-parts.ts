import type { Agent as AgentType, EnvHttpProxyAgent as EnvHttpProxyAgentType } from 'undici';
import AgentImpl from 'undici/lib/dispatcher/agent.js';
import DispatcherImpl from 'undici/lib/dispatcher/dispatcher.js';
import api from 'undici/lib/api/index.js';

/*
 * Only the parts of undici the client uses: the connection pool and its request API (undici's
 * own index does this wiring for its Dispatcher: Object.assign of the api onto it). On Node 20,
 * llhttp's WebAssembly is kept on V8's baseline compiler, whose background tier-up would hold
 * the process open after its work; it must be set before the first request. Why, with figures:
 * docs/decisions/undici-parts-only.md.
 */
if (Number(process.versions.node.split('.')[0]) < 22)
  process.getBuiltinModule('node:v8').setFlagsFromString('--liftoff-only');

Object.assign((DispatcherImpl as { prototype: object }).prototype, api);

export const Agent = AgentImpl as unknown as typeof AgentType;

/** Loaded only when a proxy is configured. */
export async function loadEnvHttpProxyAgent(): Promise<typeof EnvHttpProxyAgentType> {
  const { default: impl } = await import('undici/lib/dispatcher/env-http-proxy-agent.js');
  return impl as unknown as typeof EnvHttpProxyAgentType;
}
