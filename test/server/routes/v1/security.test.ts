import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ALL_SCOPES, type Scope } from '../../../../contracts/scopes.ts';
import { startTestStack, type TestStack } from '../../../helpers/stack.ts';
import { makeCpf, TenantFixtures } from '../../../helpers/fixtures.ts';
import { nowSeconds, sign } from '../../../helpers/signed-client.ts';

/**
 * One security set for every route of the patient, catalog and doctor families:
 * no key (401), bad signature (401), key without the route's scope (403) and another tenant's data
 * (never visible, never touched). Spec 01 § Authentication, § Scopes; "a key never sees records of another tenant".
 */

const OTHER = 'clinica-outra';
/** Ids far above anything the main tenant creates, so "not found" can only mean "other tenant". */
const OTHER_PACIENTE = 500_001;
const OTHER_PACIENTE_2 = 500_002;
const OTHER_MEDICO = 600_001;
const OTHER_CPF = makeCpf(31_337);

let stack: TestStack;
let other: TenantFixtures;

interface Route {
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  scope: Scope;
  body?: () => unknown;
  /** What the main tenant's key gets when aiming at the other tenant's data, and the proof nothing leaked. */
  otherTenant: () => Promise<void>;
}

const call = (method: string, path: string, body?: unknown) =>
  stack.call({ method, path, body, idempotencyKey: method === 'GET' ? undefined : randomUUID() });

async function expectNotFound(method: string, path: string, body?: unknown) {
  const res = await call(method, path, body);
  expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(404);
  expect(res.body.error).toEqual({ code: 'RES_NOT_FOUND', message: expect.any(String), details: null });
}

/** A listing in the main tenant never shows the other tenant's rows (their names all start with OUTRA). */
async function expectListWithoutOther(path: string) {
  const res = await call('GET', path);
  expect(res.status, path).toBe(200);
  expect(JSON.stringify(res.body.data), path).not.toMatch(/OUTRA/i);
}

const patientBody = () => ({ nome: `Paciente Seguranca ${randomUUID().slice(0, 8)}`, data_nascimento: '1990-01-01' });
const medicoBody = () => ({ nome: 'Medico Seguranca', usuario: `seg.${randomUUID().slice(0, 8)}`, senha: 'x1' });

const ROUTES: Route[] = [
  {
    method: 'GET',
    path: '/v1/pacientes',
    scope: 'pacientes:read',
    otherTenant: async () => {
      await expectListWithoutOther('/v1/pacientes?limit=200');
      expect((await call('GET', `/v1/pacientes?cpf=${OTHER_CPF}`)).body.data).toEqual([]);
    },
  },
  {
    method: 'GET',
    path: `/v1/pacientes/${OTHER_PACIENTE}`,
    scope: 'pacientes:read',
    otherTenant: () => expectNotFound('GET', `/v1/pacientes/${OTHER_PACIENTE}`),
  },
  {
    method: 'POST',
    path: '/v1/pacientes',
    scope: 'pacientes:write',
    body: patientBody,
    otherTenant: async () => {
      // The other tenant's CPF is free here (uniqueness is per clinic) and the new patient stays here.
      const res = await call('POST', '/v1/pacientes', { ...patientBody(), cpf: OTHER_CPF });
      expect(res.status).toBe(201);
      expect(other.get('pacientes', res.body.data.id)).toBeUndefined();
    },
  },
  {
    method: 'PATCH',
    path: `/v1/pacientes/${OTHER_PACIENTE}`,
    scope: 'pacientes:write',
    body: () => ({ nome: 'Invasor Tentando' }),
    otherTenant: async () => {
      await expectNotFound('PATCH', `/v1/pacientes/${OTHER_PACIENTE}`, { nome: 'Invasor Tentando' });
      expect(other.get('pacientes', OTHER_PACIENTE)?.nome).toBe('OUTRA PACIENTE UM');
    },
  },
  {
    method: 'POST',
    path: '/v1/pacientes/unificar',
    scope: 'pacientes:write',
    body: () => ({ paciente_id_principal: OTHER_PACIENTE, paciente_id_duplicado: OTHER_PACIENTE_2 }),
    otherTenant: async () => {
      const res = await call('POST', '/v1/pacientes/unificar', { paciente_id_principal: OTHER_PACIENTE, paciente_id_duplicado: OTHER_PACIENTE_2 });
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('BUSINESS_RULE');
      expect(other.get('pacientes', OTHER_PACIENTE_2)).toBeDefined();
    },
  },
  ...['/v1/procedimentos', '/v1/convenios', '/v1/cids?q=OUTRA', '/v1/unidades', '/v1/complementos', '/v1/grupos-laudos', '/v1/medicos'].map(
    (path): Route => ({ method: 'GET', path, scope: 'catalogos:read', otherTenant: () => expectListWithoutOther(path) }),
  ),
  {
    method: 'GET',
    path: `/v1/medicos/${OTHER_MEDICO}`,
    scope: 'catalogos:read',
    otherTenant: () => expectNotFound('GET', `/v1/medicos/${OTHER_MEDICO}`),
  },
  {
    method: 'POST',
    path: '/v1/medicos',
    scope: 'medicos:write',
    body: medicoBody,
    otherTenant: async () => {
      // The other tenant's login is free here, and the doctor is created here only.
      const res = await call('POST', '/v1/medicos', { ...medicoBody(), usuario: 'outra.medica' });
      expect(res.status).toBe(201);
      expect(other.get('medicos', res.body.data.id)).toBeUndefined();
    },
  },
  {
    method: 'PATCH',
    path: `/v1/medicos/${OTHER_MEDICO}`,
    scope: 'medicos:write',
    body: () => ({ telefone: '1100000000' }),
    otherTenant: async () => {
      await expectNotFound('PATCH', `/v1/medicos/${OTHER_MEDICO}`, { telefone: '1100000000' });
      expect(other.get('medicos', OTHER_MEDICO)?.telefone).toBeNull();
    },
  },
];

beforeAll(async () => {
  stack = await startTestStack();
  await stack.createTenant(OTHER);
  other = new TenantFixtures(stack.dataDir, OTHER);
  other.paciente({ id: OTHER_PACIENTE, nome: 'OUTRA PACIENTE UM', cpf: OTHER_CPF });
  other.paciente({ id: OTHER_PACIENTE_2, nome: 'OUTRA PACIENTE DOIS' });
  other.medico({ id: OTHER_MEDICO, nome: 'OUTRA MEDICA', usuario: 'outra.medica', papel_laudo: 1 });
  other.insert('procedimentos', { nome: 'OUTRA PROCEDIMENTO' });
  const convenio = other.insert('convenios', { nome: 'OUTRA CONVENIO' });
  other.insert('planos', { convenio_id: convenio, nome: 'OUTRA PLANO' });
  other.insert('cids', { codigo: 'Z99.9', nome: 'OUTRA DOENCA' });
  other.insert('unidades', { nome: 'OUTRA UNIDADE' });
  other.insert('complementos', { nome: 'OUTRA COMPLEMENTO' });
  other.insert('grupos_laudos', { nome: 'OUTRA GRUPO' });
  // The main tenant has rows of its own, so an empty listing is not what passes the test.
  const main = new TenantFixtures(stack.dataDir, stack.tenantSlug);
  main.paciente({ nome: 'PACIENTE DESTA CLINICA' });
  main.medico({ nome: 'MEDICO DESTA CLINICA', papel_exame: 1 });
  main.insert('procedimentos', { nome: 'PROCEDIMENTO DESTA CLINICA' });
  main.close();
});

afterAll(async () => {
  other?.close();
  await stack?.stop();
});

test('the table covers every route of the three families (5 patient, 6 catalog, 4 doctor routes)', () => {
  expect(ROUTES).toHaveLength(15);
});

describe.each(ROUTES)('$method $path', (route) => {
  const rawBody = () => (route.body ? JSON.stringify(route.body()) : undefined);

  test('no key: 401 AUTH_MISSING_HEADER', async () => {
    const body = rawBody();
    const res = await stack.raw({
      method: route.method,
      path: route.path,
      headers: body ? { 'content-type': 'application/json', 'idempotency-key': randomUUID() } : {},
      body,
    });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('AUTH_MISSING_HEADER');
    expect(res.body.data).toBeNull();
  });

  test('bad signature: 401 AUTH_INVALID_SIGNATURE', async () => {
    const body = rawBody() ?? '';
    const timestamp = String(nowSeconds());
    const res = await stack.raw({
      method: route.method,
      path: route.path,
      headers: {
        'x-api-key': stack.creds.apiKey,
        'x-timestamp': timestamp,
        // Signed with another secret over the right payload.
        'x-signature': sign('f'.repeat(64), timestamp, route.method, route.path, body),
        ...(body ? { 'content-type': 'application/json', 'idempotency-key': randomUUID() } : {}),
      },
      body: body || undefined,
    });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('AUTH_INVALID_SIGNATURE');
  });

  test(`key without ${route.scope}: 403 AUTH_INSUFFICIENT_SCOPE`, async () => {
    const creds = await stack.newKey({ scopes: ALL_SCOPES.filter((s) => s !== route.scope) });
    const res = await stack.call(
      { method: route.method, path: route.path, body: route.body?.(), idempotencyKey: route.method === 'GET' ? undefined : randomUUID() },
      creds,
    );
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('AUTH_INSUFFICIENT_SCOPE');
  });

  test("other tenant's data: invisible and untouched", async () => {
    await route.otherTenant();
  });
});
