import { afterAll, beforeAll, expect, test } from 'vitest';
import { startTestStack, type TestStack } from '../../../helpers/stack.ts';
import { backendAdmin, TenantFixtures } from '../../../helpers/fixtures.ts';

// Spec 02 § Capabilities and GET /v1/config.
let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack();
});
afterAll(async () => stack?.stop());

test('200 capabilities: version, api_version, escopos, enums; Cache-Control private, max-age=300', async () => {
  const res = await stack.call({ path: '/v1/config' });
  expect(res.status).toBe(200);
  expect(res.headers['cache-control']).toBe('private, max-age=300');
  expect(res.body.data.version).toBe(res.headers['x-api-release']);
  expect(res.body.meta.version).toBe(res.headers['x-api-release']);
  expect(res.body.data.api_version).toBe('v1');
  expect(res.body.data.escopos).toHaveLength(13);
  expect(res.body.data.enums).toMatchObject({
    sexo: ['MAS', 'FEM', 'OUT'],
    arquivo_tipo: ['exame', 'laudo'],
    status_laudo: ['PENDENTE', 'EMITIDO', 'ASSINADO'],
    prioridade: [1, 2, 3],
    requer_laudo: [0, 1],
  });
});

test('defaults come from the tenant settings in backend-sim; null means the client must send the id', async () => {
  const admin = backendAdmin(stack);
  let res = await stack.call({ path: '/v1/config' });
  expect(res.body.data.defaults).toEqual({
    unidade_id: null,
    medico_exame_id: null,
    medico_laudo_id: null,
    convenio_id: null,
  });
  const fixtures = new TenantFixtures(stack.dataDir, stack.tenantSlug);
  const unidadeId = fixtures.insert('unidades', { nome: 'Unidade Centro' });
  const medicoId = fixtures.medico({ nome: 'DRA. ANA LAUDO', papel_laudo: 1 });
  fixtures.close();
  const patch = await admin('PATCH', `/tenants/${stack.tenantSlug}/settings`, {
    defaults: { unidade_id: unidadeId, medico_laudo_id: medicoId },
  });
  expect(patch.status).toBe(200);
  res = await stack.call({ path: '/v1/config' });
  expect(res.body.data.defaults).toEqual({
    unidade_id: unidadeId,
    medico_exame_id: null,
    medico_laudo_id: medicoId,
    convenio_id: null,
  });
});

test('each tenant sees its own defaults', async () => {
  await stack.createTenant('outra-clinica');
  const creds = await stack.newKey({ tenant: 'outra-clinica' });
  const res = await stack.call({ path: '/v1/config' }, creds);
  expect(res.body.data.defaults.unidade_id).toBeNull();
});
