import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { spawnStack, stopStack } from '../../helpers/child-stack.ts';
import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, type WriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { EXPLANATIONS_PER_MINUTE } from '../../../server/auth/auth-plugin.ts';
import { explainSignatureMismatch, MAX_CHECKED_BODY_BYTES } from '../../../server/auth/signature-debug.ts';
import { FakeBackend, injectApp } from '../inject/app.ts';
import {
  nowSeconds,
  sign,
  signedRequest,
  type Credentials,
  type SignedRequest,
  type SignedResponse,
} from '../../helpers/signed-client.ts';

/**
 * Issue 13 § Signature debugging. One test per common signing mistake: in development mode the
 * `details` of AUTH_INVALID_SIGNATURE show the string the server signed, and it differs from the
 * integrator's exactly where the integrator went wrong; production answers `details: null`; no response
 * and no line of the server log (LOG_LEVEL=trace, captured to a file) ever holds the signature the
 * server expected, nor the secret.
 */

/** The integrator's side of the comparison: the payload they signed, with the server's LF/CR markers (docs/api/README-signing.md). */
const visible = (payload: string) => payload.replace(/\r/g, '␍').replace(/\n/g, '⏎\n');
const firstDifference = (a: string, b: string) => {
  for (let i = 0; i < Math.max(a.length, b.length); i++) if (a[i] !== b[i]) return i;
  return -1;
};
const hmacHex = (secret: string, payload: string) => createHmac('sha256', secret).update(payload).digest('hex');

/** Every signature a server would have accepted for the requests of this file, and every response text. */
const expectedSignatures: string[] = [];
const responses: string[] = [];
const secrets: string[] = [];

/**
 * Sends `req` with a mistake and records the signature the server expects for what was really sent
 * (computed here, as the server would: exact target, exact body bytes).
 */
async function sendWithMistake(
  baseUrl: string,
  creds: Credentials,
  req: SignedRequest & { timestamp: string },
): Promise<SignedResponse> {
  const method = req.method ?? 'GET';
  const raw = req.body === undefined ? '' : typeof req.body === 'string' ? req.body : JSON.stringify(req.body);
  expectedSignatures.push(sign(creds.apiSecret, req.timestamp, method, req.path, raw));
  const res = await signedRequest(baseUrl, creds, req);
  responses.push(res.text);
  expect(res.status).toBe(401);
  expect(res.body.error.code).toBe('AUTH_INVALID_SIGNATURE');
  expect(res.body.error.message).toBe('Assinatura invalida.');
  return res;
}

const causeCodes = (res: SignedResponse) =>
  (res.body.error.details.causas_provaveis as Array<{ code: string; message: string }>).map((c) => c.code);

describe('development mode: the stack in its own process (as npm start runs it), LOG_LEVEL=trace captured to a file', () => {
  let child: ChildProcess;
  let dataDir: string;
  let logFile: string;
  let logStream: WriteStream;
  let baseUrl: string;
  let creds: Credentials;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'gw-sigdebug-'));
    logFile = path.join(dataDir, 'server.log');
    logStream = createWriteStream(logFile);
    ({ child, baseUrl } = await spawnStack(
      dataDir,
      { APP_ENV: 'development', LOG_LEVEL: 'trace' },
      { output: (chunk) => logStream.write(chunk) },
    ));
    const demo = JSON.parse(readFileSync(path.join(dataDir, 'demo-credentials.json'), 'utf8')).keys.demo;
    creds = { apiKey: demo.api_key, apiSecret: demo.api_secret };
    secrets.push(demo.api_secret);
  }, 60_000);

  afterAll(async () => {
    await stopStack(child);
    logStream?.end();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  test('the correct signature passes (the key and the clock are right)', async () => {
    const res = await signedRequest(baseUrl, creds, { path: '/v1/ping' });
    expect(res.status).toBe(200);
  });

  test('wrong secret: the server signed exactly what the integrator signed, so the secret is what differs', async () => {
    const ts = String(nowSeconds());
    const res = await sendWithMistake(baseUrl, creds, {
      path: '/v1/ping',
      timestamp: ts,
      signWith: { secret: randomBytes(32).toString('hex') },
    });
    const d = res.body.error.details;
    expect(d.payload_assinado).toBe(visible(`${ts}.GET /v1/ping\n`));
    expect(d).toMatchObject({
      field: 'X-Signature',
      metodo: 'GET',
      path_and_query: '/v1/ping',
      timestamp: ts,
      corpo_bytes: 0,
      payload_truncado: false,
    });
    expect(d.corpo_sha256).toBe(createHash('sha256').update('').digest('hex'));
    expect(causeCodes(res)).toEqual(['NO_VARIANT_MATCHED']);
    expect(res.body.error.details.causas_provaveis[0].message).toContain('api_secret');
  });

  test('a GET with a signed body (issue 21 § 4): the body is named as never read nor signed, not NO_VARIANT_MATCHED', async () => {
    const ts = String(nowSeconds());
    const body = '{"nome":"Maria"}';
    // What the server expects: a GET's payload ends with the LF, whatever body came with it.
    expectedSignatures.push(sign(creds.apiSecret, ts, 'GET', '/v1/pacientes', ''));
    const res = await signedRequest(baseUrl, creds, { path: '/v1/pacientes', timestamp: ts, body });
    responses.push(res.text);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('AUTH_INVALID_SIGNATURE');
    const d = res.body.error.details;
    expect(d.payload_assinado).toBe(visible(`${ts}.GET /v1/pacientes\n`));
    expect(d.corpo_bytes).toBe(0);
    expect(causeCodes(res)).toEqual(['GET_BODY_NOT_SIGNED']);
    expect(d.causas_provaveis[0].message).toBe(
      `Requisicao GET com corpo de ${Buffer.byteLength(body)} bytes: o gateway nao le o corpo de um GET e nao o inclui no payload, que termina no LF depois de path_and_query. ` +
        'Assine sem corpo e nao envie corpo (os filtros vao na query string).',
    );
    // Signed without the body it sends, the same GET passes: the body is ignored.
    const unsigned = await signedRequest(baseUrl, creds, { path: '/v1/ping', body, signWith: { body: '' } });
    expect(unsigned.status).toBe(200);
  });

  test('re-serialized body: signed compact JSON, sent it pretty-printed; the strings differ from the first byte of the body', async () => {
    const ts = String(nowSeconds());
    const object = { nome: 'Maria', itens: [1, 2, 3], endereco: { cidade: 'Sao Paulo' } };
    const compact = JSON.stringify(object);
    const pretty = JSON.stringify(object, null, 2);
    const res = await sendWithMistake(baseUrl, creds, {
      method: 'POST',
      path: '/v1/ping',
      body: pretty,
      timestamp: ts,
      signWith: { body: compact },
    });
    const d = res.body.error.details;
    const theirs = visible(`${ts}.POST /v1/ping\n${compact}`);
    const prefix = visible(`${ts}.POST /v1/ping\n`);
    expect(d.payload_assinado).toBe(visible(`${ts}.POST /v1/ping\n${pretty}`));
    // Same up to and including the body's `{`; the server's next character is the pretty-printer's line feed.
    expect(firstDifference(d.payload_assinado, theirs)).toBe(prefix.length + 1);
    expect(d.corpo_bytes).toBe(Buffer.byteLength(pretty));
    expect(d.corpo_sha256).toBe(createHash('sha256').update(pretty).digest('hex'));
    expect(d.corpo_sha256).not.toBe(createHash('sha256').update(compact).digest('hex'));
    expect(causeCodes(res)).toEqual(['BODY_RESERIALIZED']);
    expect(d.causas_provaveis[0].message).toContain('compacto');
  });

  test('re-serialized body the other way: signed pretty, sent compact', async () => {
    const ts = String(nowSeconds());
    const object = { paciente_nome: 'José', ok: true };
    const res = await sendWithMistake(baseUrl, creds, {
      method: 'POST',
      path: '/v1/ping',
      body: JSON.stringify(object),
      timestamp: ts,
      signWith: { body: JSON.stringify(object, null, 4) },
    });
    expect(causeCodes(res)).toEqual(['BODY_RESERIALIZED']);
    expect(res.body.error.details.causas_provaveis[0].message).toContain('4 espacos');
  });

  test('reordered query: the strings differ at the first reordered parameter', async () => {
    const ts = String(nowSeconds());
    const sent = '/v1/pacientes?limit=10&offset=0&nome=Maria';
    const signed = '/v1/pacientes?nome=Maria&limit=10&offset=0';
    const res = await sendWithMistake(baseUrl, creds, { path: sent, timestamp: ts, signWith: { path: signed } });
    const d = res.body.error.details;
    expect(d.path_and_query).toBe(sent);
    expect(d.payload_assinado).toBe(visible(`${ts}.GET ${sent}\n`));
    expect(firstDifference(d.payload_assinado, visible(`${ts}.GET ${signed}\n`))).toBe(
      `${ts}.GET /v1/pacientes?`.length,
    );
    expect(causeCodes(res)).toEqual(['QUERY_REORDERED']);
  });

  test('uppercase hex digest: the payloads are identical, the digest encoding is named', async () => {
    const ts = String(nowSeconds());
    const upper = sign(creds.apiSecret, ts, 'GET', '/v1/ping', '').toUpperCase();
    const res = await sendWithMistake(baseUrl, creds, { path: '/v1/ping', timestamp: ts, signature: upper });
    expect(res.body.error.details.payload_assinado).toBe(visible(`${ts}.GET /v1/ping\n`));
    expect(causeCodes(res)).toEqual(['SIGNATURE_UPPERCASE_HEX']);
    expect(res.body.error.details.causas_provaveis[0].message).toContain('minusculo');
    // The uppercase digest is the integrator's own header, not something the server revealed.
    expect(res.text).not.toContain(upper.toLowerCase());
  });

  test('missing trailing LF: the server string is the integrator string plus the visible line feed', async () => {
    const ts = String(nowSeconds());
    const theirs = `${ts}.GET /v1/ping`;
    const res = await sendWithMistake(baseUrl, creds, {
      path: '/v1/ping',
      timestamp: ts,
      signature: hmacHex(creds.apiSecret, theirs),
    });
    const d = res.body.error.details;
    expect(d.payload_assinado).toBe(`${theirs}⏎\n`);
    expect(firstDifference(d.payload_assinado, visible(theirs))).toBe(theirs.length);
    expect(causeCodes(res)).toEqual(['MISSING_LF']);
  });

  test('full URL in the payload: the strings differ right after the method', async () => {
    const ts = String(nowSeconds());
    const fullUrl = `${baseUrl}/v1/ping`;
    const res = await sendWithMistake(baseUrl, creds, { path: '/v1/ping', timestamp: ts, signWith: { path: fullUrl } });
    const d = res.body.error.details;
    expect(d.payload_assinado).toBe(visible(`${ts}.GET /v1/ping\n`));
    expect(firstDifference(d.payload_assinado, visible(`${ts}.GET ${fullUrl}\n`))).toBe(`${ts}.GET `.length);
    expect(causeCodes(res)).toEqual(['FULL_URL_SIGNED']);
    expect(d.causas_provaveis[0].message).toContain(fullUrl);
  });

  describe('other mistakes it names', () => {
    const cases: Array<{ name: string; code: string; req: (ts: string) => SignedRequest }> = [
      {
        name: 'query left out of the payload',
        code: 'QUERY_OMITTED',
        req: () => ({ path: '/v1/pacientes?limit=5', signWith: { path: '/v1/pacientes' } }),
      },
      {
        name: 'query signed decoded',
        code: 'QUERY_ENCODING',
        req: () => ({ path: '/v1/pacientes?nome=Jos%C3%A9', signWith: { path: '/v1/pacientes?nome=José' } }),
      },
      {
        name: 'another method signed',
        code: 'METHOD_DIFFERENT',
        req: () => ({ path: '/v1/ping', signWith: { method: 'POST' } }),
      },
      {
        name: 'lowercase method signed',
        code: 'METHOD_DIFFERENT',
        req: () => ({ path: '/v1/ping', signWith: { method: 'get' } }),
      },
      {
        name: 'timestamp taken twice (one second apart)',
        code: 'TIMESTAMP_DIFFERENT',
        req: (ts) => ({ path: '/v1/ping', signWith: { timestamp: Number(ts) - 1 } }),
      },
      {
        name: 'path signed without /v1',
        code: 'PATH_WITHOUT_V1',
        req: () => ({ path: '/v1/ping', signWith: { path: '/ping' } }),
      },
      {
        name: 'body not signed',
        code: 'BODY_NOT_SIGNED',
        req: () => ({ method: 'POST', path: '/v1/ping', body: '{"a":1}', signWith: { body: '' } }),
      },
      {
        name: 'body sent with a final newline it was not signed with',
        code: 'BODY_TRAILING_NEWLINE',
        req: () => ({ method: 'POST', path: '/v1/ping', body: '{"a":1}\n', signWith: { body: '{"a":1}' } }),
      },
      {
        name: 'Python json.dumps defaults signed',
        code: 'BODY_RESERIALIZED',
        req: () => ({
          method: 'POST',
          path: '/v1/ping',
          body: '{"nome":"José","n":1}',
          signWith: { body: '{"nome": "Jos\\u00e9", "n": 1}' },
        }),
      },
    ];
    for (const c of cases) {
      test(`${c.name} → ${c.code}`, async () => {
        const ts = String(nowSeconds());
        const res = await sendWithMistake(baseUrl, creds, { ...c.req(ts), timestamp: ts });
        expect(causeCodes(res)).toContain(c.code);
        expect(causeCodes(res)).not.toContain('NO_VARIANT_MATCHED');
      });
    }

    test('CRLF instead of LF → CRLF_INSTEAD_OF_LF', async () => {
      const ts = String(nowSeconds());
      const res = await sendWithMistake(baseUrl, creds, {
        path: '/v1/ping',
        timestamp: ts,
        signature: hmacHex(creds.apiSecret, `${ts}.GET /v1/ping\r\n`),
      });
      expect(causeCodes(res)).toEqual(['CRLF_INSTEAD_OF_LF']);
    });

    test('hex-decoded secret used as the HMAC key → SECRET_HEX_DECODED', async () => {
      const ts = String(nowSeconds());
      const signature = createHmac('sha256', Buffer.from(creds.apiSecret, 'hex'))
        .update(`${ts}.GET /v1/ping\n`)
        .digest('hex');
      const res = await sendWithMistake(baseUrl, creds, { path: '/v1/ping', timestamp: ts, signature });
      expect(causeCodes(res)).toEqual(['SECRET_HEX_DECODED']);
    });

    test('base64 digest → SIGNATURE_BASE64, and that it is otherwise right', async () => {
      const ts = String(nowSeconds());
      const signature = createHmac('sha256', creds.apiSecret).update(`${ts}.GET /v1/ping\n`).digest('base64');
      const res = await sendWithMistake(baseUrl, creds, { path: '/v1/ping', timestamp: ts, signature });
      expect(causeCodes(res)).toEqual(['SIGNATURE_BASE64']);
      expect(res.body.error.details.causas_provaveis[0].message).toContain('confere');
    });

    test('a signature of another length → SIGNATURE_FORMAT, nothing recomputed', async () => {
      const res = await sendWithMistake(baseUrl, creds, {
        path: '/v1/ping',
        timestamp: String(nowSeconds()),
        signature: 'abc123',
      });
      expect(causeCodes(res)).toEqual(['SIGNATURE_FORMAT']);
    });

    test(`a body above ${MAX_CHECKED_BODY_BYTES / 1024} KB (262 KB here): shown truncated, described by length and SHA-256, no variant recomputed`, async () => {
      const ts = String(nowSeconds());
      const body = JSON.stringify({ observacao: 'x'.repeat(262 * 1024) });
      const res = await sendWithMistake(baseUrl, creds, {
        method: 'POST',
        path: '/v1/exames',
        body,
        timestamp: ts,
        idempotencyKey: randomUUID(),
        signWith: { body: `${body} ` },
      });
      const d = res.body.error.details;
      expect(d.payload_truncado).toBe(true);
      expect(d.corpo_bytes).toBe(body.length);
      expect(d.corpo_sha256).toBe(createHash('sha256').update(body).digest('hex'));
      expect(d.payload_assinado.length).toBeLessThan(5000);
      expect(d.payload_assinado.startsWith(visible(`${ts}.POST /v1/exames\n{"observacao":"xxx`))).toBe(true);
      expect(causeCodes(res)).toEqual(['VARIANTS_NOT_CHECKED']);
    });
  });

  test('AUTH_TIMESTAMP_EXPIRED gives the server time and the skew', async () => {
    const ts = nowSeconds() - 3600;
    const res = await signedRequest(baseUrl, creds, { path: '/v1/ping', timestamp: ts });
    responses.push(res.text);
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('AUTH_TIMESTAMP_EXPIRED');
    const d = res.body.error.details;
    expect(d).toMatchObject({ field: 'X-Timestamp', window_seconds: 300 });
    expect(Math.abs(d.skew_seconds + 3600)).toBeLessThanOrEqual(2);
    expect(Math.abs(d.server_timestamp - nowSeconds())).toBeLessThanOrEqual(2);
    expect(Math.abs(Date.parse(d.server_time) - Date.now())).toBeLessThan(3000);
  });

  test('the server log (trace level) holds these requests but never an expected signature nor the secret', async () => {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    await new Promise<void>((r) => logStream.end(r));
    const log = readFileSync(logFile, 'utf8');
    // The capture works: every refused request is in it, by its request id.
    for (const text of responses) expect(log).toContain(JSON.parse(text).meta.request_id);
    expect(log).toContain('"msg":"incoming request"');
    expect(expectedSignatures.length).toBeGreaterThanOrEqual(15);
    for (const signature of expectedSignatures) {
      expect(log.toLowerCase()).not.toContain(signature);
      expect(log).not.toContain(Buffer.from(signature, 'hex').toString('base64'));
    }
    for (const secret of secrets) expect(log).not.toContain(secret);
  });
});

describe('production mode: details null', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ APP_ENV: 'production' });
    secrets.push(stack.creds.apiSecret);
  });
  afterAll(async () => stack?.stop());

  const mistakes: Array<{ name: string; req: (ts: string, secret: string) => SignedRequest }> = [
    { name: 'wrong secret', req: () => ({ path: '/v1/ping', signWith: { secret: 'f'.repeat(64) } }) },
    {
      name: 're-serialized body',
      req: () => ({ method: 'POST', path: '/v1/ping', body: '{\n  "a": 1\n}', signWith: { body: '{"a":1}' } }),
    },
    {
      name: 'reordered query',
      req: () => ({ path: '/v1/pacientes?limit=1&offset=0', signWith: { path: '/v1/pacientes?offset=0&limit=1' } }),
    },
    {
      name: 'uppercase hex digest',
      req: (ts, secret) => ({ path: '/v1/ping', signature: sign(secret, ts, 'GET', '/v1/ping', '').toUpperCase() }),
    },
    {
      name: 'missing trailing LF',
      req: (ts, secret) => ({ path: '/v1/ping', signature: hmacHex(secret, `${ts}.GET /v1/ping`) }),
    },
    {
      name: 'full URL in the payload',
      req: () => ({ path: '/v1/ping', signWith: { path: `${stack.gatewayUrl}/v1/ping` } }),
    },
  ];
  for (const m of mistakes) {
    test(`${m.name}: AUTH_INVALID_SIGNATURE with details null`, async () => {
      const ts = String(nowSeconds());
      const res = await sendWithMistake(stack.gatewayUrl, stack.creds, {
        ...m.req(ts, stack.creds.apiSecret),
        timestamp: ts,
      });
      expect(res.body.error.details).toBeNull();
    });
  }

  test('AUTH_TIMESTAMP_EXPIRED gives the server time and skew in production too', async () => {
    const res = await stack.call({ path: '/v1/ping', timestamp: nowSeconds() + 400 });
    responses.push(res.text);
    expect(res.body.error.code).toBe('AUTH_TIMESTAMP_EXPIRED');
    expect(Math.abs(res.body.error.details.skew_seconds - 400)).toBeLessThanOrEqual(2);
  });
});

test('no response of this file holds an expected signature or a secret', () => {
  expect(responses.length).toBeGreaterThanOrEqual(25);
  for (const text of responses) {
    for (const signature of expectedSignatures) {
      expect(text.toLowerCase()).not.toContain(signature);
      expect(text).not.toContain(Buffer.from(signature, 'hex').toString('base64'));
    }
    for (const secret of secrets) expect(text).not.toContain(secret);
  }
});

describe('explanations cost little and are rationed (issue 20 § 1: a CPU amplifier otherwise)', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE: '1000' });
  });
  afterAll(async () => stack?.stop());

  const wrong = (key: Credentials, localAddress?: string, body = '{"a":1}') =>
    // Sent with a final line feed it was not signed with (BODY_TRAILING_NEWLINE when variants are checked).
    stack.call({ method: 'POST', path: '/v1/pacientes', body: `${body}\n`, signWith: { body }, localAddress }, key);

  test(`variants only for bodies up to ${MAX_CHECKED_BODY_BYTES} bytes; above, the string to sign and the body hash`, async () => {
    const key = await stack.newKey();
    const small = await wrong(key, undefined, JSON.stringify({ a: 'x'.repeat(MAX_CHECKED_BODY_BYTES - 20) }));
    expect(small.body.error.details.causas_provaveis.map((c: { code: string }) => c.code)).toContain(
      'BODY_TRAILING_NEWLINE',
    );
    const large = await wrong(key, undefined, JSON.stringify({ a: 'x'.repeat(MAX_CHECKED_BODY_BYTES) }));
    expect(large.body.error.details.causas_provaveis.map((c: { code: string }) => c.code)).toEqual([
      'VARIANTS_NOT_CHECKED',
    ]);
    expect(large.body.error.details.corpo_sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  test(`at most ${EXPLANATIONS_PER_MINUTE} a minute per key, and per client address; past it the plain refusal`, async () => {
    const key = await stack.newKey();
    for (let i = 0; i < EXPLANATIONS_PER_MINUTE; i++)
      expect((await wrong(key, '127.0.0.21')).body.error.details).not.toBeNull();
    const rationed = await wrong(key, '127.0.0.22');
    expect(rationed.status).toBe(401);
    expect(rationed.body.error.code).toBe('AUTH_INVALID_SIGNATURE');
    expect(rationed.body.error.details).toBeNull();
    // Another key from the first address: that address has used its ration too.
    const other = await stack.newKey();
    expect((await wrong(other, '127.0.0.21')).body.error.details).toBeNull();
    // Another key from a fresh address: explained.
    expect((await wrong(other, '127.0.0.23')).body.error.details).not.toBeNull();
  });
});

describe('an address past its quota of unauthenticated refusals', () => {
  const QUOTA = 5;

  test('gets 429 RATE_LIMIT_EXCEEDED with Retry-After over HTTP; another address is not affected, a valid call from it passes', async () => {
    const stack = await startTestStack({ UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE: String(QUOTA) });
    try {
      const key = await stack.newKey();
      const send = () =>
        stack.call(
          { method: 'POST', path: '/v1/ping', body: '{}', signWith: { body: '{} ' }, localAddress: '127.0.0.31' },
          key,
        );
      for (let i = 0; i < QUOTA; i++) expect((await send()).status).toBe(401);
      const refused = await send();
      expect(refused.status).toBe(429);
      expect(refused.body.error).toMatchObject({
        code: 'RATE_LIMIT_EXCEEDED',
        details: { escopo: 'endereco_cliente', limite_por_minuto: QUOTA },
      });
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      // Another address is not affected, and a valid call from the limited address is never charged nor refused.
      expect(
        (
          await stack.call(
            { method: 'POST', path: '/v1/ping', body: '{}', signWith: { body: '{} ' }, localAddress: '127.0.0.32' },
            key,
          )
        ).status,
      ).toBe(401);
      expect((await stack.call({ path: '/v1/ping', localAddress: '127.0.0.31' }, key)).status).toBe(200);
    } finally {
      await stack.stop();
    }
  });

  test('has no explanation computed: the explainer (the real one, counted) runs once per explained 401 and never for a 429', async () => {
    let computed = 0;
    const gateway = await injectApp(new FakeBackend(), {
      env: { APP_ENV: 'development', UNAUTHENTICATED_RATE_LIMIT_PER_MINUTE: String(QUOTA) },
      explainSignature: (input) => {
        computed += 1;
        return explainSignatureMismatch(input);
      },
    });
    try {
      const { apiKey, apiSecret } = gateway.creds;
      // Signed over `{} ` and sent as `{}`: a signature mismatch, explained in development mode.
      const send = async (remoteAddress: string, signedBody = '{} ') => {
        const ts = String(nowSeconds());
        const res = await gateway.app.inject({
          method: 'POST',
          url: '/v1/ping',
          remoteAddress,
          headers: {
            'content-type': 'application/json',
            'x-api-key': apiKey,
            'x-timestamp': ts,
            'x-signature': sign(apiSecret, ts, 'POST', '/v1/ping', signedBody),
          },
          payload: '{}',
        });
        return { status: res.statusCode, body: JSON.parse(res.payload) };
      };
      for (let i = 1; i <= QUOTA; i++) {
        const res = await send('127.0.0.41');
        expect(res.status).toBe(401);
        expect(res.body.error.code).toBe('AUTH_INVALID_SIGNATURE');
        expect(res.body.error.details.payload_assinado).toEqual(expect.any(String));
        expect(computed).toBe(i);
      }
      for (let i = 0; i < 10; i++) {
        const res = await send('127.0.0.41');
        expect(res.status).toBe(429);
        expect(res.body.error.code).toBe('RATE_LIMIT_EXCEEDED');
      }
      // Ten refusals past the quota, none explained.
      expect(computed).toBe(QUOTA);
      // Another address with the same key is explained (counted).
      const elsewhere = await send('127.0.0.42');
      expect(elsewhere.status).toBe(401);
      expect(elsewhere.body.error.details).not.toBeNull();
      expect(computed).toBe(QUOTA + 1);
      // A valid call from the limited address passes and computes nothing.
      expect((await send('127.0.0.41', '{}')).status).toBe(200);
      expect(computed).toBe(QUOTA + 1);
    } finally {
      await gateway.close();
    }
  });
});
