import { afterAll, beforeAll, expect, test } from 'vitest';
import { BACKEND_RETRY_AFTER_SECONDS } from '../../../../server/backend/client.ts';
import { FakeBackend, injectApp, type InjectApp } from '../../inject/app.ts';

// GET /v1/pacientes/{id}/prontuarios/anexos/{anexoId}/url, in process: an attachment backend-sim knows but whose
// storage location it does not give (its answer's `data` is null) is a backend failure, not a 404.

const T = 'clinica-anexos';
const fake = new FakeBackend({ [`GET /tenants/${T}/pacientes/7/prontuarios/anexos/3/url`]: () => ({ data: null }) });
let gw: InjectApp;

beforeAll(async () => {
  gw = await injectApp(fake, { tenantSlug: T });
});
afterAll(() => gw.close());

test('an attachment whose location the backend does not give: 503 SERVICE_UNAVAILABLE with Retry-After, no Location', async () => {
  const res = await gw.request({ path: '/v1/pacientes/7/prontuarios/anexos/3/url' });
  expect(res.status).toBe(503);
  expect(res.body.error).toMatchObject({
    code: 'SERVICE_UNAVAILABLE',
    message: 'O sistema da clinica nao forneceu a URL do anexo. Tente novamente mais tarde.',
  });
  expect(res.headers['retry-after']).toBe(String(BACKEND_RETRY_AFTER_SECONDS));
  expect(res.headers.location).toBeUndefined();
  expect(fake.callsTo(`GET /tenants/${T}/pacientes/7/prontuarios/anexos/3/url`)).toHaveLength(1);
});
