import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { ApiError, notFound } from '../../errors.ts';
import type { AdminDeps } from '../deps.ts';
import { guard, parseInput } from '../http.ts';
import { idParams, slugParams } from '../../../contracts/admin/common.ts';
import { issueKeySchema, updateKeySchema, type IssuedKey, type KeyView } from '../../../contracts/admin/keys.ts';
import { tenantPath } from '../../../contracts/backend/tenants.ts';

export default async function keyRoutes(app: FastifyInstance, deps: AdminDeps): Promise<void> {
  const requireTenant = async (slug: string) => {
    const tenant = await deps.tenants.get(slug);
    if (!tenant) throw notFound();
    return tenant;
  };

  /** The key and its tenant; also records them as the subject of the action being audited. */
  const loadKey = async (request: { params: unknown; adminAudit: unknown }, id: number) => {
    const key = await guard(() => deps.keys.get(id));
    const tenant = (await deps.tenants.list()).find((t) => t.id === key.tenant_id);
    (request as { adminAudit: unknown }).adminAudit = {
      tenantId: key.tenant_id,
      tenantSlug: tenant?.slug ?? null,
      chaveId: id,
    };
    return { key, tenantSlug: tenant?.slug ?? '' };
  };

  /** A doctor can be bound only if it exists in that clinic. */
  const requireMedico = async (slug: string, medicoId: number) => {
    if (medicoId === 0) return;
    try {
      await deps.backend.call({ method: 'GET', path: tenantPath(slug, `/medicos/${medicoId}`) }, z.unknown());
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) {
        throw new ApiError('INVALID_REFERENCE', 'Medico inexistente nesta clinica.', { field: 'medico_id' });
      }
      await guard(() => Promise.reject(error));
    }
  };

  app.get('/tenants/:slug/keys', async (request): Promise<KeyView[]> => {
    const { slug } = parseInput(slugParams, request.params);
    await requireTenant(slug);
    return guard(() => deps.keys.list(slug));
  });

  app.post(
    '/tenants/:slug/keys',
    { config: { consoleAction: 'key.create' } },
    async (request, reply): Promise<IssuedKey> => {
      const { slug } = parseInput(slugParams, request.params);
      const tenant = await requireTenant(slug);
      request.adminAudit = { tenantId: tenant.id, tenantSlug: tenant.slug };
      const input = parseInput(issueKeySchema, request.body);
      await requireMedico(slug, input.medico_id);
      const issued = await guard(() =>
        deps.keys.create({ tenantSlug: slug, scopes: input.scopes, medicoId: input.medico_id, label: input.label }),
      );
      request.adminAudit = {
        tenantId: tenant.id,
        tenantSlug: tenant.slug,
        chaveId: issued.chave_id,
        detail: { escopos: input.scopes, medico_id: input.medico_id },
      };
      reply.status(201);
      return { ...issued, key: await deps.keys.get(issued.chave_id) };
    },
  );

  app.get('/keys/:id', async (request): Promise<KeyView> => {
    const { id } = parseInput(idParams, request.params);
    return guard(() => deps.keys.get(id));
  });

  app.patch('/keys/:id', { config: { consoleAction: 'key.update' } }, async (request): Promise<KeyView> => {
    const { id } = parseInput(idParams, request.params);
    const { key, tenantSlug } = await loadKey(request, id);
    const input = parseInput(updateKeySchema, request.body);
    if (input.medico_id !== undefined) await requireMedico(tenantSlug, input.medico_id);
    const updated = await guard(() =>
      deps.keys.update(id, { scopes: input.scopes, medicoId: input.medico_id, label: input.label }),
    );
    request.adminAudit = {
      ...request.adminAudit,
      detail: {
        antes: { escopos: key.escopos, medico_id: key.medico_id, label: key.label },
        depois: { escopos: updated.escopos, medico_id: updated.medico_id, label: updated.label },
      },
    };
    return updated;
  });

  app.post('/keys/:id/rotate', { config: { consoleAction: 'key.rotate' } }, async (request): Promise<IssuedKey> => {
    const { id } = parseInput(idParams, request.params);
    await loadKey(request, id);
    const issued = await guard(() => deps.keys.rotate(id));
    return { ...issued, key: await deps.keys.get(id) };
  });

  app.post('/keys/:id/revoke', { config: { consoleAction: 'key.revoke' } }, async (request): Promise<KeyView> => {
    const { id } = parseInput(idParams, request.params);
    await loadKey(request, id);
    return guard(() => deps.keys.revoke(id));
  });
}
