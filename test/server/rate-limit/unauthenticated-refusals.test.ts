import net from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { journalGroups } from '../../helpers/journal.ts';

/**
 * Issue 19 § Outsiders cannot evict history: requests that carry no resolvable key (no key, an unknown
 * key, malformed headers) and requests refused before routing or by the HTTP parser (an undecodable URL,
 * headers too large, a malformed request line) are charged to their client address: past its quota the
 * answer is 429 RATE_LIMIT_EXCEEDED with Retry-After, while another address is still answered. Both the
 * refusals and the 429s are counted in the journal's unattributed groups of that address.
 */

const QUOTA = 5;
let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE: String(QUOTA) });
});
afterAll(async () => stack?.stop());

/** The requests the unattributed groups counted for one address, status and code. */
const countedFor = async (address: string, status: number, code: string) =>
  (await journalGroups(stack, { status, error_code: code }))
    .filter((g) => g.client_ip === address)
    .reduce((sum, g) => sum + g.count, 0);

/** Raw bytes on a socket from `localAddress` (what no HTTP client library sends); resolves with the raw answer. */
function rawExchange(bytes: string, localAddress: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const url = new URL(stack.gatewayUrl);
    const socket = net.connect({ port: Number(url.port), host: url.hostname, localAddress }, () => socket.write(bytes));
    let out = '';
    socket.on('data', (d) => (out += d));
    socket.on('close', () => resolve(out));
    socket.on('error', reject);
  });
}

const statusOf = (answer: string) => Number(/^HTTP\/1\.1 (\d{3}) /.exec(answer)?.[1]);
const bodyOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
const retryAfterOf = (answer: string) => Number(/\r\nRetry-After: (\d+)\r\n/i.exec(answer)?.[1]);

const HTTP_CASES = [
  { name: 'no X-API-Key', status: 401, code: 'AUTH_MISSING_HEADER', request: { path: '/v1/pacientes' } },
  {
    name: 'an unknown key',
    status: 401,
    code: 'AUTH_KEY_NOT_FOUND',
    request: {
      path: '/v1/pacientes',
      headers: {
        'x-api-key': `ck_live_${'0'.repeat(32)}`,
        'x-timestamp': String(Math.floor(Date.now() / 1000)),
        'x-signature': '0'.repeat(64),
      },
    },
  },
  {
    name: 'malformed headers (a key of the wrong shape, a timestamp that is no number)',
    status: 401,
    code: undefined,
    request: {
      path: '/v1/pacientes',
      headers: { 'x-api-key': 'nao-e-uma-chave', 'x-timestamp': 'ontem', 'x-signature': 'x' },
    },
  },
  {
    name: 'an undecodable URL (bad percent-encoding)',
    status: 400,
    code: 'VAL_INVALID_PARAM',
    request: { path: '/v1/pacientes/%E0%A4%A' },
  },
] as const;

for (const [i, c] of HTTP_CASES.entries()) {
  test(`${c.name}: ${QUOTA} × ${c.status} from one address, then 429 with Retry-After; another address is still answered; the groups count both`, async () => {
    const address = `127.0.0.${41 + i}`;
    const other = `127.0.0.${61 + i}`;
    let code: string = c.code ?? '';
    for (let n = 0; n < QUOTA; n++) {
      const res = await stack.raw({ ...c.request, localAddress: address });
      expect(res.status, res.text).toBe(c.status);
      code = res.body.error.code;
      if (c.code) expect(code).toBe(c.code);
    }
    const limited = await stack.raw({ ...c.request, localAddress: address });
    expect(limited.status, limited.text).toBe(429);
    expect(limited.body.error).toMatchObject({
      code: 'RATE_LIMIT_EXCEEDED',
      details: { escopo: 'endereco_cliente', limite_por_minuto: QUOTA },
    });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // Another address is refused for what it sent, not rate-limited.
    const fromOther = await stack.raw({ ...c.request, localAddress: other });
    expect(fromOther.status).toBe(c.status);
    // A valid call from the limited address is neither charged nor refused.
    expect((await stack.call({ path: '/v1/ping', localAddress: address })).status).toBe(200);
    expect(await countedFor(address, c.status, code)).toBe(QUOTA);
    expect(await countedFor(address, 429, 'RATE_LIMIT_EXCEEDED')).toBe(1);
    expect(await countedFor(other, c.status, code)).toBe(1);
  });
}

const PARSER_CASES = [
  {
    name: 'headers too large (431)',
    status: 431,
    bytes: `GET /v1/ping HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
  },
  { name: 'a malformed request line (400)', status: 400, bytes: '\x00\x01garbage \xff\r\n\r\n' },
] as const;

for (const [i, c] of PARSER_CASES.entries()) {
  test(`refused by the HTTP parser, ${c.name}: ${QUOTA} refusals from one address, then 429 with Retry-After on the socket; the groups count both`, async () => {
    const address = `127.0.0.${51 + i}`;
    const other = `127.0.0.${71 + i}`;
    for (let n = 0; n < QUOTA; n++) {
      const answer = await rawExchange(c.bytes, address);
      expect(statusOf(answer), answer.slice(0, 200)).toBe(c.status);
      expect(bodyOf(answer).error.code).toBe('VAL_INVALID_PARAM');
    }
    const limited = await rawExchange(c.bytes, address);
    expect(statusOf(limited), limited.slice(0, 200)).toBe(429);
    expect(bodyOf(limited).error).toMatchObject({
      code: 'RATE_LIMIT_EXCEEDED',
      details: { escopo: 'endereco_cliente', limite_por_minuto: QUOTA },
    });
    expect(retryAfterOf(limited)).toBeGreaterThan(0);
    expect(statusOf(await rawExchange(c.bytes, other))).toBe(c.status);
    expect(await countedFor(address, c.status, 'VAL_INVALID_PARAM')).toBe(QUOTA);
    expect(await countedFor(address, 429, 'RATE_LIMIT_EXCEEDED')).toBe(1);
    expect(await countedFor(other, c.status, 'VAL_INVALID_PARAM')).toBe(1);
  });
}
