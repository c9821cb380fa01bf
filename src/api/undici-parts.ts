import type { Agent as AgentType, EnvHttpProxyAgent as EnvHttpProxyAgentType } from 'undici';
import AgentImpl from 'undici/lib/dispatcher/agent.js';
import DispatcherImpl from 'undici/lib/dispatcher/dispatcher.js';
import api from 'undici/lib/api/index.js';

/*
 * Only the parts of undici the client uses: the connection pool and its request API.
 * `import 'undici'` also loads fetch, WebSocket, caches, mocks and more — about 100 ms at every
 * start of the CLI on this machine, against about 30 ms for these (bench:startup). This wiring
 * is what undici's own index does for its Dispatcher (Object.assign of the api onto it).
 */
/*
 * undici parses HTTP with llhttp compiled to WebAssembly. On Node 20, V8 compiles it twice: a
 * quick baseline (Liftoff), then an optimised version on a background thread, and the process
 * cannot exit until that finishes, which kept every command alive about 110 ms after its work
 * was done (bench:startup). A CLI command parses a few small answers: the baseline is plenty.
 * Must run before undici compiles the module, i.e. before the first request. From Node 22, V8
 * compiles WebAssembly lazily and tiers up only what runs hot: no wait, nothing to do (and a
 * flag changed at run time makes V8 turn down Node's cached code for its built-in modules).
 */
if (Number(process.versions.node.split('.')[0]) < 22) process.getBuiltinModule('node:v8').setFlagsFromString('--liftoff-only');

Object.assign((DispatcherImpl as { prototype: object }).prototype, api);

export const Agent = AgentImpl as unknown as typeof AgentType;

/** Loaded only when a proxy is configured. */
export async function loadEnvHttpProxyAgent(): Promise<typeof EnvHttpProxyAgentType> {
  const { default: impl } = await import('undici/lib/dispatcher/env-http-proxy-agent.js');
  return impl as unknown as typeof EnvHttpProxyAgentType;
}
