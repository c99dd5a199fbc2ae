import net from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';

/**
 * Issue 29: the answers written by hand on the socket for requests Node's HTTP parser refuses (400, 431, 408, and
 * 429 once the address is over its quota), and Fastify's own refusals before routing, carry the headers every API
 * answer carries: X-Request-Id (the same id as `meta.request_id`), X-Api-Version, X-Api-Release, Content-Type,
 * X-Content-Type-Options, Cache-Control and Date, as a routed refusal of a write does.
 */

const QUOTA = 3;
let stack: TestStack;
/** The header names of a routed refusal of a write (unsigned POST → 401), but the connection's own. */
let expectedNames: string[];
let routedContentType: string;

beforeAll(async () => {
  stack = await startTestStack({ UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE: String(QUOTA) });
  const routed = await stack.raw({ method: 'POST', path: '/v1/pacientes', localAddress: '127.0.0.90' });
  expect(routed.status).toBe(401);
  expect(routed.headers['x-request-id']).toBe(routed.body.meta.request_id);
  expectedNames = Object.keys(routed.headers).filter((name) => !['connection', 'keep-alive'].includes(name));
  routedContentType = routed.headers['content-type'];
});
afterAll(async () => stack?.stop());

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: any;
}

function parse(answer: string): RawAnswer {
  const end = answer.indexOf('\r\n\r\n');
  const [statusLine, ...lines] = answer.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(answer.slice(end + 4)) };
}

/** Raw bytes on a socket from `localAddress` (what no HTTP client sends); resolves with the parsed answer. */
function rawExchange(bytes: string, localAddress: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const url = new URL(stack.gatewayUrl);
    const socket = net.connect({ port: Number(url.port), host: url.hostname, localAddress }, () =>
      socket.write(bytes, 'latin1'),
    );
    let out = '';
    socket.setEncoding('latin1');
    socket.on('data', (d) => (out += d));
    socket.on('close', () => {
      try {
        resolve(parse(out));
      } catch {
        reject(new Error(`not an HTTP answer: ${JSON.stringify(out.slice(0, 300))}`));
      }
    });
    socket.on('error', reject);
  });
}

function expectApiHeaders(answer: RawAnswer, status: number) {
  expect(answer.status).toBe(status);
  for (const name of expectedNames) expect(answer.headers, `header ${name}`).toHaveProperty(name);
  expect(answer.headers['x-request-id']).toMatch(/^[0-9a-f]{24}$/);
  expect(answer.headers['x-request-id']).toBe(answer.body.meta.request_id);
  expect(answer.headers['x-api-version']).toBe('v1');
  expect(answer.headers['content-type']).toBe(routedContentType);
  expect(answer.headers['x-content-type-options']).toBe('nosniff');
  expect(answer.headers['cache-control']).toBe('no-store');
  expect(Math.abs(Date.parse(answer.headers.date) - Date.now())).toBeLessThan(60_000);
  expect(Number(answer.headers['content-length'])).toBe(Buffer.byteLength(JSON.stringify(answer.body)));
}

const PARSER_REFUSALS = [
  {
    name: 'a control character in a header value',
    status: 400,
    bytes: 'GET /v1/ping HTTP/1.1\r\nHost: x\r\nX-Nome: a\x01b\r\n\r\n',
  },
  {
    name: 'headers over the parser limit',
    status: 431,
    bytes: `GET /v1/ping HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
  },
  { name: 'a malformed request line', status: 400, bytes: '\x00\x01garbage \xff\r\n\r\n' },
] as const;

for (const [i, c] of PARSER_REFUSALS.entries()) {
  test(`refused by the HTTP parser, ${c.name}: ${c.status} with the API's headers, X-Request-Id = meta.request_id`, async () => {
    const answer = await rawExchange(c.bytes, `127.0.0.${91 + i}`);
    expectApiHeaders(answer, c.status);
    expect(answer.body.error.code).toBe('VAL_INVALID_PARAM');
  });
}

test("a request that does not arrive in time: 408 with the API's headers", async () => {
  // Node emits clientError ERR_HTTP_REQUEST_TIMEOUT for it when its connection check runs (every 30 s, fixed when
  // the server is created): the same event is emitted here on the server's side of a real half-sent request.
  const connected = new Promise<net.Socket>((resolve) => stack.app.server.once('connection', resolve));
  const answer = rawExchange('GET /v1/ping HTTP/1.1\r\nHost: x\r\n', '127.0.0.95');
  const socket = await connected;
  await new Promise((resolve) => setTimeout(resolve, 50));
  stack.app.server.emit(
    'clientError',
    Object.assign(new Error('timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }),
    socket,
  );
  const refused = await answer;
  expectApiHeaders(refused, 408);
  expect(refused.body.error.code).toBe('VAL_INVALID_PARAM');
});

test("past the address's quota of refusals: the parser's refusal is a 429 with the API's headers and Retry-After", async () => {
  const address = '127.0.0.96';
  const bytes = PARSER_REFUSALS[0].bytes;
  for (let n = 0; n < QUOTA; n++) expect((await rawExchange(bytes, address)).status).toBe(400);
  const limited = await rawExchange(bytes, address);
  expectApiHeaders(limited, 429);
  expect(limited.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
  expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
});

test("refused by Fastify before routing (an undecodable URL on a write): 400 with the API's headers", async () => {
  const res = await stack.raw({ method: 'POST', path: '/v1/pacientes/%E0%A4%A', localAddress: '127.0.0.97' });
  expect(res.status).toBe(400);
  for (const name of expectedNames) expect(res.headers, `header ${name}`).toHaveProperty(name);
  expect(res.headers['x-request-id']).toBe(res.body.meta.request_id);
  expect(res.headers['x-api-version']).toBe('v1');
  expect(res.body.error.code).toBe('VAL_INVALID_PARAM');
});
