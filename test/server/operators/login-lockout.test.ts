import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { ensureOperator, lockoutAddress, setOperatorPassword } from '../../../server/operators/index.ts';
import { ConsoleClient, type ConsoleResponse } from '../admin/console-client.ts';

// Issue 12 § Console login: an unknown username and a wrong password get the same answer, and the
// lockout is per (username, client address), so a stranger cannot lock the operator out from elsewhere.
// Other machines are played by other loopback source addresses (127.0.0.x, Linux routes all of 127/8
// to lo); the gateway has no trustProxy, so request.ip is the socket's peer address.

let stack: TestStack;
const PASSWORD = 'correct-horse-battery-staple';
const unique = (prefix: string) => `${prefix}-${randomBytes(4).toString('hex')}`;
const from = (address: string) => new ConsoleClient(stack.gatewayUrl, { localAddress: address });

beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => stack?.stop());

/** The answer without what differs on every request: its id, its duration (and so the body's length by a digit). */
function comparable(res: ConsoleResponse): unknown {
  const { request_id: _id, duracao_ms: _ms, ...meta } = res.body.meta;
  const { date: _date, 'x-request-id': _rid, 'content-length': _length, ...headers } = res.headers;
  return { status: res.status, headers, body: { ...res.body, meta } };
}

describe('unknown username and wrong password: identical answers', () => {
  it('same status, headers and body, byte for byte bar request id and duration', async () => {
    const real = unique('operador');
    await ensureOperator(stack.gatewayDb.db, real, PASSWORD);
    const client = from('127.0.0.1');
    const wrong = await client.login(real, 'wrong-password');
    const unknown = await client.login(unique('ninguem'), 'wrong-password');
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toEqual({
      code: 'ADMIN_UNAUTHENTICATED',
      message: 'Usuario ou senha invalidos.',
      details: null,
    });
    expect(comparable(unknown)).toEqual(comparable(wrong));
    // Byte for byte, once the id and the duration are taken out.
    const strip = (text: string) => text.replace(/"request_id":"[^"]*"/, '').replace(/"duracao_ms":\d+/, '');
    expect(strip(unknown.text)).toBe(strip(wrong.text));
  });

  it('the lock is the same for both: 429 on the fifth failure, same body and Retry-After', async () => {
    const real = unique('operador');
    await ensureOperator(stack.gatewayDb.db, real, PASSWORD);
    const ghost = unique('fantasma');
    const client = from('127.0.0.4');
    const answers: Record<string, ConsoleResponse[]> = { [real]: [], [ghost]: [] };
    for (let i = 0; i < 5; i++) {
      for (const username of [real, ghost]) answers[username].push(await client.login(username, `bad-${i}`));
    }
    expect(answers[real].map((r) => r.status)).toEqual([401, 401, 401, 401, 429]);
    for (let i = 0; i < 5; i++) expect(comparable(answers[ghost][i])).toEqual(comparable(answers[real][i]));
    expect(answers[real][4].body.error?.code).toBe('ADMIN_LOCKED');
    expect(answers[real][4].headers['retry-after']).toBe('900');
  });

  it('same timing class: an unknown username costs a password verification too', async () => {
    const real = unique('operador');
    await ensureOperator(stack.gatewayDb.db, real, PASSWORD);
    const time = async (username: string, address: string) => {
      const client = from(address);
      const took: number[] = [];
      for (let i = 0; i < 4; i++) {
        const start = performance.now();
        expect((await client.login(username, `bad-${i}`)).status).toBe(401);
        took.push(performance.now() - start);
      }
      // The fastest of the tries: load on the machine can only make a try slower, never faster.
      return Math.min(...took);
    };
    const known = await time(real, '127.0.0.5');
    const unknown = await time(unique('ninguem'), '127.0.0.5');
    // scrypt (N=2^15) dominates both; without it an unknown user would answer in a few ms. Lower bounds
    // only: a busy machine stretches both, so a ratio between them would flake.
    expect(known).toBeGreaterThan(15);
    expect(unknown).toBeGreaterThan(15);
  });
});

describe('lockout per (username, client address)', () => {
  it('a stranger hammering from another address does not lock the operator out; the stranger stays locked', async () => {
    const operator = unique('operador');
    await ensureOperator(stack.gatewayDb.db, operator, PASSWORD);
    const stranger = from('127.0.0.2');
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await stranger.login(operator, `guess-${i}`)).status);
    expect(statuses).toEqual([401, 401, 401, 401, ...Array(8).fill(429)]);
    // Brute force from that address is over, whatever it tries: even the right password is refused.
    const right = await stranger.login(operator, PASSWORD);
    expect(right.status).toBe(429);
    expect(right.body.error?.code).toBe('ADMIN_LOCKED');
    expect(Number(right.headers['retry-after'])).toBeGreaterThan(800);

    // The operator, at their own address, signs in and works.
    const own = from('127.0.0.1');
    expect((await own.login(operator, PASSWORD)).status).toBe(200);
    expect((await own.call('GET', '/admin/api/auth/session')).body.data.operator.username).toBe(operator);
    // ... and signing in does not lift the stranger's lock.
    expect((await stranger.login(operator, PASSWORD)).status).toBe(429);
  });

  it('parallel guesses from one address cannot overrun the limit: at most 5 passwords are checked', async () => {
    const operator = unique('operador');
    await ensureOperator(stack.gatewayDb.db, operator, PASSWORD);
    const stranger = from('127.0.0.3');
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => stranger.login(operator, `parallel-${i}`)));
    const count = (status: number) => answers.filter((r) => r.status === status).length;
    expect(count(401)).toBe(4);
    expect(count(429)).toBe(16);
  });

  it('a lock runs out: after it, the address gets a fresh count', async () => {
    const operator = unique('operador');
    await ensureOperator(stack.gatewayDb.db, operator, PASSWORD);
    const client = from('127.0.0.6');
    for (let i = 0; i < 5; i++) await client.login(operator, `bad-${i}`);
    expect((await client.login(operator, PASSWORD)).status).toBe(429);
    // Fifteen minutes later, as far as the lock is concerned.
    const past = Date.now() - 1000;
    await stack.gatewayDb.db
      .updateTable('console_login_failures')
      .set({ locked_until: past, last_failure_at: past - 15 * 60_000 })
      .where('address', '=', '127.0.0.6')
      .execute();
    expect((await client.login(operator, 'bad-again')).status).toBe(401);
    expect((await client.login(operator, PASSWORD)).status).toBe(200);
    expect(
      await stack.gatewayDb.db
        .selectFrom('console_login_failures')
        .selectAll()
        .where('address', '=', '127.0.0.6')
        .execute(),
    ).toEqual([]);
  });

  it('setting the password (the way back for a locked-out operator) lifts every lock on the username', async () => {
    const operator = unique('operador');
    await ensureOperator(stack.gatewayDb.db, operator, PASSWORD);
    const client = from('127.0.0.7');
    for (let i = 0; i < 5; i++) await client.login(operator, `bad-${i}`);
    expect((await client.login(operator, PASSWORD)).status).toBe(429);
    await setOperatorPassword(stack.gatewayDb.db, operator, `${PASSWORD}-2`);
    expect((await client.login(operator, `${PASSWORD}-2`)).status).toBe(200);
  });

  it('stores neither usernames nor passwords, only a hash of the username and the address', async () => {
    const ghost = unique('fantasma');
    await from('127.0.0.8').login(ghost, 'some-password');
    const rows = await stack.gatewayDb.db
      .selectFrom('console_login_failures')
      .selectAll()
      .where('address', '=', '127.0.0.8')
      .execute();
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(ghost);
    expect(JSON.stringify(rows)).not.toContain('some-password');
  });

  it('IPv6 clients are counted per /64, IPv4-mapped addresses as IPv4', () => {
    expect(lockoutAddress('2001:db8:aa:bb:1:2:3:4')).toBe('2001:db8:aa:bb::/64');
    expect(lockoutAddress('2001:db8:aa:bb::99')).toBe('2001:db8:aa:bb::/64');
    expect(lockoutAddress('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(lockoutAddress('::ffff:10.0.0.7')).toBe('10.0.0.7');
    expect(lockoutAddress('127.0.0.1')).toBe('127.0.0.1');
  });
});
