import { afterAll, beforeAll, expect, test } from 'vitest';
import type { ClinicSettings } from '../../../../contracts/backend/settings.ts';
import { BACKEND_RETRY_AFTER_SECONDS } from '../../../../server/backend/client.ts';
import { FakeBackend, injectApp, type InjectApp } from '../../inject/app.ts';

// GET /v1/config's tenant defaults (spec 02 § Capabilities), in process: read from backend-sim's settings
// with the same contract as exam create; no default is null, never 0.

const T = 'clinica-config';
let settings: ClinicSettings;
const fake = new FakeBackend({ [`GET /tenants/${T}/settings`]: () => ({ data: settings }) });
let gw: InjectApp;

beforeAll(async () => {
  gw = await injectApp(fake, { tenantSlug: T });
});
afterAll(() => gw.close());

test('the clinic defaults exam create applies, null where there is none', async () => {
  settings = {
    nome: 'Clinica Config',
    cpf_obrigatorio: false,
    celular_obrigatorio: false,
    solicitante_obrigatorio: false,
    medico_laudo_obrigatorio: false,
    central_laudos_disponivel: true,
    defaults: { unidade_id: 2, medico_exame_id: null, medico_laudo_id: 5, convenio_id: 0 },
  };
  const res = await gw.request({ path: '/v1/config' });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.data.defaults).toEqual({
    unidade_id: 2,
    medico_exame_id: null,
    medico_laudo_id: 5,
    convenio_id: null,
  });
  expect(fake.callsTo(`GET /tenants/${T}/settings`)).toHaveLength(1);
});

test('settings outside the contract are a backend contract violation (503 with Retry-After, as any backend failure), not a guess', async () => {
  settings = { defaults: {} } as unknown as ClinicSettings;
  const res = await gw.request({ path: '/v1/config' });
  expect(res.status).toBe(503);
  expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
  expect(res.headers['retry-after']).toBe(String(BACKEND_RETRY_AFTER_SECONDS));
});
