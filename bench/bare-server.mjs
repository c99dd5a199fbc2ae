import Fastify from 'fastify';

// The baseline: a bare Fastify hello-world and JSON echo, run with plain `node` (no TypeScript
// loader), the best this machine does with no gateway work at all.
const app = Fastify({ logger: false });
app.get('/', async () => ({ hello: 'world' }));
app.post('/', async (request) => ({ echo: request.body }));
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${address.port}` })}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
