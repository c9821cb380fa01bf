/*
 * Native calls the process gave up waiting for: a credential-store call that did not answer
 * within its time limit (credentials/credential-store.ts). Such a call goes on in libuv's thread
 * pool, where nothing can stop it (an AbortSignal only cancels a call still queued), and it
 * keeps the process alive until it returns: for an unlock prompt nobody answers, indefinitely.
 * Even process.exit() waits for it, as Node shuts libuv's thread pool down, joining its threads,
 * on the way out (docs/decisions/stranded-calls-end-the-process.md). runProcess (main.ts) asks
 * here whether one is left, and if so ends the process another way.
 */

const stranded = new Set<Promise<unknown>>();

/** Records a call given up on; it is forgotten if it does return while the process lives. */
export function strandCall(call: Promise<unknown>): void {
  stranded.add(call);
  const forget = () => stranded.delete(call);
  call.then(forget, forget);
}

/** Whether a call given up on is still running. */
export function hasStrandedCalls(): boolean {
  return stranded.size > 0;
}
