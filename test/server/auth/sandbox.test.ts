import { afterAll, beforeAll, expect, test } from 'vitest';
import { randomUUID } from 'node:crypto';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';
import { ALL_SCOPES } from '../../../contracts/scopes.ts';

// Spec 01 § Sandbox: "Enabled in the sandbox: all GET operations, POST /v1/ping and the three agenda POST
// operations. Writes for patient, exam and report are not enabled there."
let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
  await stack.createTenant('sandbox-publico', { sandbox: true });
});
afterAll(async () => stack?.stop());

test('even a key with every scope cannot write patients in the sandbox: 403 OPERATION_NOT_ALLOWED', async () => {
  const creds = await stack.newKey({ tenant: 'sandbox-publico', scopes: [...ALL_SCOPES] });
  const res = await stack.call(
    {
      method: 'POST',
      path: '/v1/pacientes',
      body: { nome: 'Paciente Sandbox', data_nascimento: '1990-01-01' },
      idempotencyKey: randomUUID(),
    },
    creds,
  );
  expect(res.status).toBe(403);
  expect(res.body.error.code).toBe('OPERATION_NOT_ALLOWED');
  const doctor = await stack.call(
    {
      method: 'POST',
      path: '/v1/medicos',
      body: { nome: 'Dr Sandbox', usuario: 'drsandbox', senha: 'x' },
      idempotencyKey: randomUUID(),
    },
    creds,
  );
  expect(doctor.status).toBe(403);
});

test('GETs and POST /v1/ping stay enabled in the sandbox', async () => {
  const creds = await stack.newKey({ tenant: 'sandbox-publico', scopes: [...ALL_SCOPES] });
  expect((await stack.call({ path: '/v1/pacientes' }, creds)).status).toBe(200);
  expect((await stack.call({ method: 'POST', path: '/v1/ping', body: {} }, creds)).status).toBe(200);
});

test('the same write is allowed outside the sandbox', async () => {
  const res = await stack.call({
    method: 'POST',
    path: '/v1/pacientes',
    body: { nome: 'Paciente Normal', data_nascimento: '1990-01-01' },
    idempotencyKey: randomUUID(),
  });
  expect(res.status).toBe(201);
});
