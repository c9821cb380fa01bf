import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { EventSummary } from '../../src/contract/index.js';
import { useSandboxInProcess } from '../support/in-process-cli.js';
import { useServer } from '../support/listen.js';
import { inReview, postInReview } from '../support/event-fixtures.js';

/*
 * A 408 means the server did not get the whole request in time: nothing was processed, and the
 * same request may go through when sent again (src/failures/ says "unavailable", like a 503).
 * The real sandbox answers 408 only to a client that stalls, so a pass-through in front of it
 * answers the first PATCH 408, as a proxy or a load balancer on a slow link does, and forwards
 * every other request to the sandbox. fraudctl runs in-process (main()).
 */

const cli = useSandboxInProcess();
let patchesSeen = 0;
const front = useServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    if (req.method === 'PATCH' && ++patchesSeen === 1) {
      const requestId = randomUUID();
      res.writeHead(408, { 'content-type': 'application/json', 'x-request-id': requestId, connection: 'close' });
      res.end(JSON.stringify({ requestId, errorType: 'REQUEST_TIMEOUT', errorCodes: ['REQUEST_TIMEOUT'] }));
      return;
    }
    const hopByHop = ['host', 'connection', 'keep-alive', 'content-length', 'transfer-encoding'];
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !hopByHop.includes(name)));
    const body = chunks.length > 0 ? Buffer.concat(chunks) : null;
    const forwarded = { method: req.method ?? 'GET', headers: headers as Record<string, string>, body };
    fetch(`${cli.sb.url}${req.url}`, forwarded)
      .then(async (answer) => {
        const framing = ['content-length', 'content-encoding', 'transfer-encoding', 'connection'];
        const kept = [...answer.headers].filter(([name]) => !framing.includes(name));
        res.writeHead(answer.status, Object.fromEntries(kept));
        res.end(Buffer.from(await answer.arrayBuffer()));
      })
      .catch(() => res.destroy());
  });
});

const stateOf = async (id: string) => ((await cli.sb.call('GET', `/event/${id}`)).json as EventSummary).state;

describe('set-state for many events when a PATCH is answered 408 once', () => {
  it('retries it: every change lands, one retry in the summary and in --debug', async () => {
    patchesSeen = 0;
    const ids = [await postInReview(cli.sb, inReview('to-1')), await postInReview(cli.sb, inReview('to-2'))];
    const args = ['set-state', ...ids, '--state', 'approved', '--yes', '--debug', '--base-url', front.url];
    const result = await cli.run(args);
    expect(result.code, result.stderr).toBe(0);
    expect(await Promise.all(ids.map(stateOf))).toEqual(['APPROVED', 'APPROVED']);
    expect(patchesSeen).toBe(3);
    const retries = result.stderr.split('\n').filter((line) => line.includes('retrying after'));
    expect(retries).toEqual([expect.stringMatching(/retrying after 408$/)]);
    expect(result.stderr).toMatch(/retries\s+1\b/);
    expect(result.stdout).not.toMatch(/FAILED/);
  });
});
