// The bare-Fastify ceiling for scripts/bench-sandbox.mjs: the same framework (Fastify 5) on the same machine
// with nothing else — no auth, no schemas, no scoring, no SQLite. POST /event parses the JSON
// body and answers 201 with a small decision; GET /event/:eventId answers a small summary.
// Prints `minimal fastify listening on http://127.0.0.1:PORT` once ready; stops on SIGTERM/SIGINT.
import Fastify from 'fastify';

const app = Fastify({ logger: false });

app.post('/event', async (request, reply) => {
  reply.code(201);
  return { id: request.body.id, actionType: 'APPROVE', totalRiskScore: 0 };
});

app.get('/event/:eventId', async (request) => ({ id: request.params.eventId, state: 'APPROVED', totalScore: 0 }));

const url = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`minimal fastify listening on ${url}\n`);

for (const signal of ['SIGTERM', 'SIGINT']) {
  process.once(signal, () => {
    app.close().then(() => process.exit(0));
  });
}
