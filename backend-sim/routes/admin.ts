import { z } from 'zod';
import type { BackendRoutes } from '../deps.ts';
import { settingsPatchSchema } from '../domain/clinica/clinica.schemas.ts';
import { clinicaNome, getSettings, patchClinicaConfig, patchSettings } from '../domain/clinica/clinica.service.ts';
import { BackendError } from '../errors.ts';
import { faultInputSchema } from '../faults.ts';
import { parse } from '../lib/http.ts';
import { takePristineSnapshot } from '../db/pristine.ts';
import { resetRoutes } from './reset.ts';
import { cloneRoutes } from './clones.ts';
import { backendTenantInput as tenantInput } from '../../contracts/backend/admin.ts';

export const adminRoutes: BackendRoutes = (deps) => async (app) => {
  app.get('/admin/tenants', async () => {
    const data = [];
    for (const slug of deps.tenants.slugs()) {
      try {
        const { db } = await deps.tenants.get(slug);
        data.push({ slug, nome: await clinicaNome(db), status: 'ok' as const });
      } catch {
        data.push({ slug, nome: null, status: 'open_failed' as const });
      }
    }
    return { data, meta: { total: data.length } };
  });

  // Idempotent: creating an existing tenant only updates its name.
  app.post('/admin/tenants', async (req, reply) => {
    const input = parse(tenantInput, req.body);
    const { tenant, created } = await deps.tenants.create(input.slug);
    if (input.nome !== undefined) await patchClinicaConfig(tenant.db, { nome: input.nome }, deps.now());
    // A new tenant's first-start state (a reset's target) is this: migrated, named, nothing else.
    if (created) await takePristineSnapshot(tenant, deps.config.dataDir, input.slug);
    return reply
      .status(created ? 201 : 200)
      .send({ data: { slug: input.slug, nome: await clinicaNome(tenant.db), created }, meta: {} });
  });

  app.get('/tenants/:slug/settings', async (req) => {
    const { db } = await deps.tenants.get((req.params as { slug: string }).slug);
    return { data: await getSettings(db), meta: {} };
  });

  app.patch('/tenants/:slug/settings', async (req) => {
    const { db } = await deps.tenants.get((req.params as { slug: string }).slug);
    const input = parse(settingsPatchSchema, req.body);
    return { data: await patchSettings(db, input, deps.now()), meta: {} };
  });

  app.get('/admin/faults', async () => {
    const data = deps.faults.list();
    return { data, meta: { total: data.length } };
  });
  app.post('/admin/faults', async (req, reply) => {
    const fault = deps.faults.add(parse(faultInputSchema, req.body), deps.now());
    return reply.status(201).send({ data: fault, meta: {} });
  });
  app.delete('/admin/faults/:id', async (req) => {
    const { id } = parse(z.object({ id: z.coerce.number().int().positive() }), req.params);
    if (!deps.faults.remove(id)) throw new BackendError('RES_NOT_FOUND', 'Falha injetada inexistente.');
    return { data: { id, removida: true }, meta: {} };
  });
  app.delete('/admin/faults', async () => ({ data: { removidas: deps.faults.clear() }, meta: {} }));

  await app.register(resetRoutes(deps));
  await app.register(cloneRoutes(deps));
};
