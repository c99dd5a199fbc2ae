import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { statSync } from 'node:fs';
import path from 'node:path';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { nowSeconds, sign } from '../../helpers/signed-client.ts';
import { gatewayStateAtRest } from '../../helpers/journal.ts';

// Spec 01 § Authentication and § Authentication codes: one test per AUTH_* code.
let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => stack?.stop());

function expectAuthError(
  res: { status: number; body: any; headers: Record<string, string> },
  status: number,
  code: string,
) {
  expect(res.status).toBe(status);
  expect(res.body.data).toBeNull();
  expect(res.body.error.code).toBe(code);
  expect(typeof res.body.error.message).toBe('string');
  expect(res.body.meta.request_id).toMatch(/^[0-9a-f]+$/);
  expect(res.headers['x-api-version']).toBe('v1');
}

describe('AUTH_MISSING_HEADER: X-API-Key, X-Signature or X-Timestamp absent', () => {
  for (const header of ['x-api-key', 'x-timestamp', 'x-signature']) {
    test(`without ${header}`, async () => {
      const res = await stack.call({ path: '/v1/ping', headers: { [header]: '' } });
      expectAuthError(res, 401, 'AUTH_MISSING_HEADER');
      expect(res.body.error.details.field.toLowerCase()).toBe(header);
    });
  }
  test('no headers at all', async () => {
    expectAuthError(await stack.raw({ path: '/v1/ping' }), 401, 'AUTH_MISSING_HEADER');
  });
});

describe('AUTH_INVALID_API_KEY_FORMAT: key does not match the key format', () => {
  const bad = [
    'ce_live_ABCDEF0123456789abcdef0123456789', // uppercase hex
    'ce_live_0123456789abcdef0123456789abcde', // 31 hex chars
    'ce_test_0123456789abcdef0123456789abcdef', // not _live_
    'not-a-key',
  ];
  for (const apiKey of bad) {
    test(apiKey, async () => {
      const res = await stack.call({ path: '/v1/ping' }, { apiKey, apiSecret: stack.creds.apiSecret });
      expectAuthError(res, 401, 'AUTH_INVALID_API_KEY_FORMAT');
    });
  }
});

describe('AUTH_INVALID_TIMESTAMP: timestamp not a numeric epoch integer', () => {
  for (const ts of ['abc', '1700000000.5', '-1700000000', '1e9', '1700000000s', '0x6553f100']) {
    test(JSON.stringify(ts), async () => {
      expectAuthError(await stack.call({ path: '/v1/ping', timestamp: ts }), 401, 'AUTH_INVALID_TIMESTAMP');
    });
  }
});

describe('AUTH_TIMESTAMP_EXPIRED: timestamp outside +/-300 s', () => {
  test('301 s in the past', async () => {
    expectAuthError(
      await stack.call({ path: '/v1/ping', timestamp: nowSeconds() - 301 }),
      401,
      'AUTH_TIMESTAMP_EXPIRED',
    );
  });
  test('301 s in the future', async () => {
    expectAuthError(
      await stack.call({ path: '/v1/ping', timestamp: nowSeconds() + 301 }),
      401,
      'AUTH_TIMESTAMP_EXPIRED',
    );
  });
  test('inside the window (-290 s and +290 s) is accepted', async () => {
    expect((await stack.call({ path: '/v1/ping', timestamp: nowSeconds() - 290 })).status).toBe(200);
    expect((await stack.call({ path: '/v1/ping', timestamp: nowSeconds() + 290 })).status).toBe(200);
  });
  test('appliance clock at real time: appliance_offset_seconds 0, and the advice is to sync the client clock', async () => {
    const res = await stack.call({ path: '/v1/ping', timestamp: nowSeconds() - 3600 });
    expectAuthError(res, 401, 'AUTH_TIMESTAMP_EXPIRED');
    expect(res.body.error.message).toBe('X-Timestamp fora da janela de 300 segundos. Sincronize o relogio (NTP).');
    expect(res.body.error.details).toMatchObject({
      field: 'X-Timestamp',
      window_seconds: 300,
      appliance_offset_seconds: 0,
    });
  });
});

/**
 * Issue 21 § 4: after `clock advance 25h` a client signing with its own, correct clock (`date +%s`) is told the
 * appliance clock was moved on purpose and by how much, not to fix its NTP; signing with the appliance's time passes.
 */
describe('AUTH_TIMESTAMP_EXPIRED with the appliance clock moved ahead', () => {
  let moved: TestStack;
  beforeAll(async () => {
    moved = await startTestStack();
    await moved.clock.advance(25 * 3600 * 1000);
  });
  afterAll(async () => moved?.stop());

  test('a timestamp on real time: the offset is named in details and message, with the fix', async () => {
    const res = await moved.call({ path: '/v1/ping', timestamp: nowSeconds() });
    expectAuthError(res, 401, 'AUTH_TIMESTAMP_EXPIRED');
    const d = res.body.error.details;
    expect(d.appliance_offset_seconds).toBe(90_000);
    expect(Math.abs(d.skew_seconds + 90_000)).toBeLessThanOrEqual(2);
    expect(Math.abs(d.server_timestamp - (nowSeconds() + 90_000))).toBeLessThanOrEqual(2);
    expect(res.body.error.message).toBe(
      'X-Timestamp fora da janela de 300 segundos. O relogio do appliance foi adiantado de proposito em 1d 1h (appliance_offset_seconds: 90000) ' +
        'e o seu X-Timestamp segue o tempo real: assine com o horario do appliance (server_timestamp), isto e, o tempo real mais ' +
        'appliance_offset_seconds; ou volte o relogio com `npm run cli -- clock reset`.',
    );
    expect(res.body.error.message).not.toMatch(/NTP/);
  });

  test('a timestamp off both clocks: the offset is still named, without claiming it follows real time', async () => {
    const res = await moved.call({ path: '/v1/ping', timestamp: nowSeconds() - 7200 });
    expectAuthError(res, 401, 'AUTH_TIMESTAMP_EXPIRED');
    expect(res.body.error.details.appliance_offset_seconds).toBe(90_000);
    expect(res.body.error.message).toMatch(
      /^X-Timestamp fora da janela de 300 segundos\. O relogio do appliance foi adiantado de proposito em 1d 1h \(appliance_offset_seconds: 90000\): assine com o horario do appliance/,
    );
  });

  test('signed with the appliance time (real time plus the offset, or server_timestamp): 200', async () => {
    const refused = await moved.call({ path: '/v1/ping' });
    expect(
      (
        await moved.call({
          path: '/v1/ping',
          timestamp: nowSeconds() + refused.body.error.details.appliance_offset_seconds,
        })
      ).status,
    ).toBe(200);
    expect(
      (await moved.call({ path: '/v1/ping', timestamp: refused.body.error.details.server_timestamp })).status,
    ).toBe(200);
  });
});

test('AUTH_KEY_NOT_FOUND: unknown key', async () => {
  const res = await stack.call(
    { path: '/v1/ping' },
    { apiKey: `ce_live_${'0'.repeat(32)}`, apiSecret: stack.creds.apiSecret },
  );
  expectAuthError(res, 401, 'AUTH_KEY_NOT_FOUND');
});

test('AUTH_TENANT_OPEN_FAILED: the key resolves to a tenant that cannot be opened', async () => {
  await stack.createTenant('clinica-fechada');
  const creds = await stack.newKey({ tenant: 'clinica-fechada' });
  expect((await stack.call({ path: '/v1/ping' }, creds)).status).toBe(200);
  await stack.tenants.setStatus('clinica-fechada', 'disabled');
  expectAuthError(await stack.call({ path: '/v1/ping' }, creds), 401, 'AUTH_TENANT_OPEN_FAILED');
});

test('AUTH_KEY_REVOKED: key revoked', async () => {
  const creds = await stack.newKey();
  expect((await stack.call({ path: '/v1/ping' }, creds)).status).toBe(200);
  await stack.keys.revoke(creds.chaveId);
  expectAuthError(await stack.call({ path: '/v1/ping' }, creds), 401, 'AUTH_KEY_REVOKED');
});

test('AUTH_KEY_LEGACY: legacy key without a compatible stored secret, usable again after rotation', async () => {
  const legacyKey = `ce_live_${'ab'.repeat(16)}`;
  const id = await stack.keys.importLegacy({
    tenantSlug: stack.tenantSlug,
    apiKey: legacyKey,
    scopes: ['pacientes:read'],
  });
  expectAuthError(
    await stack.call({ path: '/v1/ping' }, { apiKey: legacyKey, apiSecret: 'f'.repeat(64) }),
    401,
    'AUTH_KEY_LEGACY',
  );
  const rotated = await stack.keys.rotate(id);
  expect(rotated.api_key).toBe(legacyKey);
  expect((await stack.call({ path: '/v1/ping' }, { apiKey: legacyKey, apiSecret: rotated.api_secret })).status).toBe(
    200,
  );
});

describe('AUTH_INVALID_SIGNATURE: server-computed HMAC differs from the sent one', () => {
  const body = JSON.stringify({ nome: 'Maria', itens: [1, 2, 3] });

  test('the untampered request is accepted', async () => {
    expect((await stack.call({ method: 'POST', path: '/v1/ping?x=1', body })).status).toBe(400); // ping takes no query
    expect((await stack.call({ method: 'POST', path: '/v1/ping', body })).status).toBe(200);
  });
  test('one byte changed in the body', async () => {
    const res = await stack.call({
      method: 'POST',
      path: '/v1/ping',
      body: body.replace('Maria', 'Marib'),
      signWith: { body },
    });
    expectAuthError(res, 401, 'AUTH_INVALID_SIGNATURE');
  });
  test('one byte changed in the path', async () => {
    const res = await stack.call({ method: 'GET', path: '/v1/ping', signWith: { path: '/v1/pinh' } });
    expectAuthError(res, 401, 'AUTH_INVALID_SIGNATURE');
  });
  test('one byte changed in the query (path_and_query is signed as sent)', async () => {
    const res = await stack.call({
      method: 'GET',
      path: '/v1/pacientes?limit=10',
      signWith: { path: '/v1/pacientes?limit=11' },
    });
    expectAuthError(res, 401, 'AUTH_INVALID_SIGNATURE');
  });
  test('a query left out of the signed payload', async () => {
    const res = await stack.call({
      method: 'GET',
      path: '/v1/pacientes?limit=10',
      signWith: { path: '/v1/pacientes' },
    });
    expectAuthError(res, 401, 'AUTH_INVALID_SIGNATURE');
  });
  test('another method signed', async () => {
    const res = await stack.call({ method: 'GET', path: '/v1/ping', signWith: { method: 'POST' } });
    expectAuthError(res, 401, 'AUTH_INVALID_SIGNATURE');
  });
  test('timestamp changed by one second after signing', async () => {
    const ts = nowSeconds();
    const res = await stack.call({ path: '/v1/ping', timestamp: ts, signWith: { timestamp: ts - 1 } });
    expectAuthError(res, 401, 'AUTH_INVALID_SIGNATURE');
  });
  test('body re-serialized with other whitespace is not the signed raw body', async () => {
    const pretty = JSON.stringify(JSON.parse(body), null, 2);
    const res = await stack.call({ method: 'POST', path: '/v1/ping', body: pretty, signWith: { body } });
    expectAuthError(res, 401, 'AUTH_INVALID_SIGNATURE');
  });
  test('uppercase hex signature is refused (lowercase hex required)', async () => {
    const ts = String(nowSeconds());
    const sig = sign(stack.creds.apiSecret, ts, 'GET', '/v1/ping', '').toUpperCase();
    expectAuthError(
      await stack.call({ path: '/v1/ping', timestamp: ts, signature: sig }),
      401,
      'AUTH_INVALID_SIGNATURE',
    );
  });
  test('signed with another key’s secret', async () => {
    const other = await stack.newKey();
    const res = await stack.call({ path: '/v1/ping', signWith: { secret: other.apiSecret } });
    expectAuthError(res, 401, 'AUTH_INVALID_SIGNATURE');
  });
});

test("AUTH_INSUFFICIENT_SCOPE (403): valid key without the endpoint scope; names the scope needed and the key's scopes", async () => {
  const creds = await stack.newKey({ scopes: ['exames:read', 'laudos:read'] });
  const res = await stack.call({ path: '/v1/pacientes' }, creds);
  expectAuthError(res, 403, 'AUTH_INSUFFICIENT_SCOPE');
  expect(res.body.error.details).toEqual({
    escopo_necessario: 'pacientes:read',
    escopos_da_chave: ['exames:read', 'laudos:read'],
  });
  expect(res.body.error.message).toBe(
    'Chave sem o escopo necessario: pacientes:read. Escopos desta chave: exames:read, laudos:read. Peca ao operador uma chave com pacientes:read.',
  );
});

test('ping and config accept any valid key, whatever its scopes', async () => {
  const creds = await stack.newKey({ scopes: ['exames:read'] });
  expect((await stack.call({ path: '/v1/ping' }, creds)).status).toBe(200);
  expect((await stack.call({ method: 'POST', path: '/v1/ping', body: {} }, creds)).status).toBe(200);
  expect((await stack.call({ path: '/v1/config' }, creds)).status).toBe(200);
});

describe('independent clients (no project code)', () => {
  // Child processes run asynchronously: the gateway under test lives in this same process.
  const run = promisify(execFile);

  test('curl + openssl, as the README shows', async () => {
    const script = `
      TS=$(date +%s)
      SIG=$(printf '%s.GET /v1/ping\\n' "$TS" | openssl dgst -sha256 -hmac "$SECRET" | sed 's/^.*= //')
      curl -s "$URL/v1/ping" -H "X-API-Key: $KEY" -H "X-Timestamp: $TS" -H "X-Signature: $SIG"`;
    const { stdout: out } = await run('bash', ['-c', script], {
      env: { ...process.env, URL: stack.gatewayUrl, KEY: stack.creds.apiKey, SECRET: stack.creds.apiSecret },
    });
    const body = JSON.parse(out);
    expect(body.error).toBeNull();
    expect(body.data.auth.chave_id).toBe(stack.creds.chaveId);
  });

  const python = `
import hmac, hashlib, json, sys, time, urllib.request, urllib.error
url, key, secret, method, path, body = sys.argv[1:7]
ts = str(int(time.time()))
payload = (ts + "." + method + " " + path + "\\n").encode() + body.encode()
sig = hmac.new(secret.encode(), payload, hashlib.sha256).hexdigest()
if len(sys.argv) > 7:  # tamper after signing: one byte of the body
    body = body.replace(sys.argv[7], sys.argv[8])
req = urllib.request.Request(url + path, data=body.encode() if body else None, method=method,
    headers={"X-API-Key": key, "X-Timestamp": ts, "X-Signature": sig, "Content-Type": "application/json"})
try:
    r = urllib.request.urlopen(req); print(r.status); print(r.read().decode())
except urllib.error.HTTPError as e:
    print(e.code); print(e.read().decode())
`;
  const runPython = async (...args: string[]) => {
    const { stdout } = await run('python3', [
      '-c',
      python,
      stack.gatewayUrl,
      stack.creds.apiKey,
      stack.creds.apiSecret,
      ...args,
    ]);
    const [status, body] = stdout.split('\n');
    return { status: Number(status), body: JSON.parse(body) };
  };

  test("Python's hmac module signs a POST with a body that the gateway accepts", async () => {
    const res = await runPython('POST', '/v1/ping', '{"ola":"mundo","senha":"x"}');
    expect(res.status).toBe(200);
    expect(res.body.data.echo.body).toEqual({ ola: 'mundo', senha: '[REDACTED]' });
  });
  test('the same Python client with one body byte changed after signing is rejected', async () => {
    const res = await runPython('POST', '/v1/ping', '{"ola":"mundo"}', 'mundo', 'mundp');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('AUTH_INVALID_SIGNATURE');
  });
});

describe('secrets at rest', () => {
  test('the api_secret is stored AES-256-GCM sealed: its hex never appears in the gateway database', async () => {
    const creds = await stack.newKey();
    const file = await gatewayStateAtRest(stack);
    expect(file.includes(Buffer.from(creds.apiSecret))).toBe(false);
    expect(file.includes(Buffer.from(creds.apiSecret, 'hex'))).toBe(false);
    const row = await stack.gatewayDb.db
      .selectFrom('api_keys')
      .select('secret_sealed')
      .where('id', '=', creds.chaveId)
      .executeTakeFirstOrThrow();
    expect(row.secret_sealed).toBeTruthy();
  });
  test('the generated master key file is readable only by its owner (0600)', () => {
    expect(statSync(path.join(stack.dataDir, 'master.key')).mode & 0o777).toBe(0o600);
  });
  test('secrets are 64 lowercase hex chars', async () => {
    expect((await stack.newKey()).apiSecret).toMatch(/^[0-9a-f]{64}$/);
  });
});

test('rotation keeps api_key; the previous secret fails at once and the new one works', async () => {
  const creds = await stack.newKey();
  expect((await stack.call({ path: '/v1/ping' }, creds)).status).toBe(200);
  const rotated = await stack.keys.rotate(creds.chaveId);
  expect(rotated.api_key).toBe(creds.apiKey);
  expect(rotated.api_secret).not.toBe(creds.apiSecret);
  expectAuthError(await stack.call({ path: '/v1/ping' }, creds), 401, 'AUTH_INVALID_SIGNATURE');
  expect((await stack.call({ path: '/v1/ping' }, { apiKey: creds.apiKey, apiSecret: rotated.api_secret })).status).toBe(
    200,
  );
});
