import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { ensureOperator } from '../../../server/operators/index.ts';

// Issue 2 § Operator CLI: `npm run cli -- <command>` against the running appliance's DATA_DIR.
// Each case spawns the CLI (a tsx process): slow on a loaded 2-core machine, so a generous timeout.
vi.setConfig({ testTimeout: 90_000 });
let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => stack?.stop());

const TSX = path.resolve('node_modules/.bin/tsx');

function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      TSX,
      ['appliance/cli/main.ts', ...args],
      { env: { ...process.env, DATA_DIR: stack.dataDir, BACKEND_URL: stack.backendUrl } },
      (error, stdout, stderr) => {
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
      },
    );
  });
}

test('tenants create and list', async () => {
  const created = await cli('tenants', 'create', 'clinica-cli', '--name', 'Clinica CLI');
  expect(created.code).toBe(0);
  const listed = await cli('tenants', 'list', '--json');
  expect(JSON.parse(listed.stdout).map((t: { slug: string }) => t.slug)).toContain('clinica-cli');
});

test('keys create --json prints only {chave_id, api_key, api_secret}; the key works at once', async () => {
  const res = await cli('keys', 'create', '--tenant', 'clinica-cli', '--scopes', 'all', '--json');
  expect(res.code).toBe(0);
  const issued = JSON.parse(res.stdout);
  expect(Object.keys(issued).sort()).toEqual(['api_key', 'api_secret', 'chave_id']);
  expect(issued.api_key).toMatch(/^[a-z]{2}_live_[0-9a-f]{32}$/);
  expect(issued.api_secret).toMatch(/^[0-9a-f]{64}$/);
  const ping = await stack.call({ path: '/v1/ping' }, { apiKey: issued.api_key, apiSecret: issued.api_secret });
  expect(ping.status).toBe(200);
  expect(ping.body.data.auth).toMatchObject({ chave_id: issued.chave_id, clinica: 'clinica-cli', medico_id: 0 });
});

test('keys create with a scope list and --medico binds the key (a doctor of that clinic)', async () => {
  // --medico is checked against the clinic's doctors (issue 13): the new clinic gets one first.
  const writer = await stack.newKey({ tenant: 'clinica-cli' });
  const doctor = await stack.call(
    {
      method: 'POST',
      path: '/v1/medicos',
      body: { nome: 'Doutora CLI', usuario: 'dra.cli', senha: 'Senha@123' },
      idempotencyKey: randomUUID(),
    },
    writer,
  );
  expect(doctor.status, doctor.text).toBe(201);
  const medicoId: number = doctor.body.data.id;
  const res = await cli(
    'keys',
    'create',
    '--tenant',
    'clinica-cli',
    '--scopes',
    'pacientes:read,exames:read',
    '--medico',
    String(medicoId),
    '--json',
  );
  expect(res.code, res.stderr).toBe(0);
  const issued = JSON.parse(res.stdout);
  const ping = await stack.call({ path: '/v1/ping' }, { apiKey: issued.api_key, apiSecret: issued.api_secret });
  expect(ping.body.data.auth.medico_id).toBe(medicoId);
  expect(ping.body.data.auth.escopos).toEqual(['pacientes:read', 'exames:read']);
});

test('keys rotate keeps api_key and makes the old secret fail at once, in the running gateway', async () => {
  const issued = JSON.parse(
    (await cli('keys', 'create', '--tenant', 'clinica-cli', '--scopes', 'read-only', '--json')).stdout,
  );
  expect(
    (await stack.call({ path: '/v1/ping' }, { apiKey: issued.api_key, apiSecret: issued.api_secret })).status,
  ).toBe(200);
  const rotated = await cli('keys', 'rotate', String(issued.chave_id), '--json');
  expect(rotated.code).toBe(0);
  const next = JSON.parse(rotated.stdout);
  expect(Object.keys(next).sort()).toEqual(['api_key', 'api_secret', 'chave_id']);
  expect(next.api_key).toBe(issued.api_key);
  const old = await stack.call({ path: '/v1/ping' }, { apiKey: issued.api_key, apiSecret: issued.api_secret });
  expect(old.status).toBe(401);
  expect(old.body.error.code).toBe('AUTH_INVALID_SIGNATURE');
  expect((await stack.call({ path: '/v1/ping' }, { apiKey: next.api_key, apiSecret: next.api_secret })).status).toBe(
    200,
  );
});

test('keys revoke → AUTH_KEY_REVOKED; keys list shows it masked, never the secret', async () => {
  const issued = JSON.parse(
    (await cli('keys', 'create', '--tenant', 'clinica-cli', '--scopes', 'all', '--json')).stdout,
  );
  expect((await cli('keys', 'revoke', String(issued.chave_id))).code).toBe(0);
  const res = await stack.call({ path: '/v1/ping' }, { apiKey: issued.api_key, apiSecret: issued.api_secret });
  expect(res.body.error.code).toBe('AUTH_KEY_REVOKED');
  const list = await cli('keys', 'list', '--tenant', 'clinica-cli');
  expect(list.code).toBe(0);
  expect(list.stdout).toContain('revoked');
  expect(list.stdout).not.toContain(issued.api_secret);
  expect(list.stdout).not.toContain(issued.api_key);
});

test('bad arguments give a clear message and a non-zero exit', async () => {
  const cases: Array<[string[], RegExp]> = [
    [['keys', 'create', '--tenant', 'nao-existe', '--scopes', 'all'], /tenant "nao-existe" does not exist/],
    [['keys', 'create', '--tenant', 'clinica-cli', '--scopes', 'tudo'], /unknown scope/],
    [['keys', 'create', '--scopes', 'all'], /--tenant/],
    [['keys', 'rotate', 'abc'], /positive integer/],
    [
      ['keys', 'create', '--tenant', 'clinica-cli', '--scopes', 'all', '--medico', '424242'],
      /--medico 424242: no such doctor in clinic "clinica-cli"/,
    ],
    [['keys', 'revoke', '99999'], /does not exist/],
    [['tenants', 'create', 'Slug Invalido'], /slug must be/],
    [['chaves'], /unknown command/],
  ];
  const results = await Promise.all(cases.map(([args]) => cli(...args)));
  cases.forEach(([args, message], i) => {
    expect(results[i].code, args.join(' ')).not.toBe(0);
    expect(results[i].stderr, args.join(' ')).toMatch(message);
    expect(results[i].stdout).toBe('');
  });
}, 120_000);

// Issue 21 § 4: an error naming a clinic, key, token or operator that does not exist lists those that do.
test('unknown clinic, key, token or operator: the error lists the valid choices', async () => {
  await ensureOperator(stack.gatewayDb.db, 'operadora', 'correct-horse-battery');
  const clinics = /; clinics: (?:[a-z0-9-]+, )*clinica-teste\b.* \(see `tenants list`\)/;
  const cases: Array<[string[], RegExp]> = [
    [
      ['keys', 'create', '--tenant', 'nao-existe', '--scopes', 'all'],
      new RegExp(`tenant "nao-existe" does not exist${clinics.source}`),
    ],
    [
      ['keys', 'create', '--tenant', 'nao-existe', '--scopes', 'all', '--medico', '3'],
      new RegExp(`tenant "nao-existe" does not exist${clinics.source}`),
    ],
    [['keys', 'list', '--tenant', 'nao-existe'], new RegExp(`tenant "nao-existe" does not exist${clinics.source}`)],
    [
      [
        'keys',
        'import-legacy',
        '--tenant',
        'nao-existe',
        '--key',
        'ce_live_0123456789abcdef0123456789abcdef',
        '--scopes',
        'all',
      ],
      new RegExp(`tenant "nao-existe" does not exist${clinics.source}`),
    ],
    [['tenants', 'reset', 'nao-existe', '--yes'], new RegExp(`tenant "nao-existe" does not exist${clinics.source}`)],
    [
      ['tokens', 'create', '--label', 'ci', '--tenant', 'nao-existe', '--operator', 'operadora'],
      new RegExp(`no such clinic: nao-existe${clinics.source}`),
    ],
    [
      ['keys', 'revoke', '99999'],
      new RegExp(`key 99999 does not exist; keys: (?:.+, )?${stack.creds.chaveId} \\(clinica-teste, active\\)`),
    ],
    [['tokens', 'revoke', '99999'], /operator token 99999 does not exist; there is no token yet \(`tokens create`\)/],
    [
      ['tokens', 'create', '--label', 'ci', '--tenant', 'clinica-teste', '--operator', 'ninguem'],
      /operator "ninguem" does not exist .*; operators: (?:.+, )?operadora\b/,
    ],
  ];
  const results = await Promise.all(cases.map(([args]) => cli(...args)));
  cases.forEach(([args, message], i) => {
    expect(results[i].code, args.join(' ')).toBe(1);
    expect(results[i].stderr, args.join(' ')).toMatch(message);
    expect(results[i].stdout, args.join(' ')).toBe('');
  });
}, 120_000);
