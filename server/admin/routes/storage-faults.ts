import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import type { AdminDeps } from '../deps.ts';
import { ApiError, invalidParam } from '../../errors.ts';
import { actionSubjectId, parseInput } from '../http.ts';
import type { removedAll, removedById } from '../../../contracts/admin/common.ts';
import { storageFaultSchema, type StorageFaultView } from '../../../contracts/admin/storage-faults.ts';

/**
 * Presign faults (server/storage/storage-faults.ts): while one matches, the file redirects answer
 * 500 RES_ARQUIVO_S3_FALHA. Gateway-side, so they live here and not in backend-sim.
 */
export default async function storageFaultRoutes(app: FastifyInstance, deps: AdminDeps): Promise<void> {
  app.get('/storage-faults', async (): Promise<StorageFaultView[]> => deps.storageFaults.list());

  app.post(
    '/storage-faults',
    { config: { consoleAction: 'storage_fault.create' } },
    async (request, reply): Promise<StorageFaultView> => {
      const input = parseInput(storageFaultSchema, request.body);
      const tenant = input.tenant === '*' ? null : await deps.tenants.get(input.tenant);
      if (tenant === undefined) throw invalidParam('tenant', 'Clinica nao encontrada.');
      const fault = await deps.storageFaults.add({ tenant: input.tenant, failure_rate: input.failure_rate });
      request.adminAudit = {
        tenantId: tenant?.id ?? null,
        tenantSlug: tenant?.slug ?? null,
        detail: { storage_fault_id: fault.id },
      };
      reply.status(201);
      return fault;
    },
  );

  app.delete(
    '/storage-faults/:id',
    { config: { consoleAction: 'storage_fault.delete' } },
    async (request): Promise<z.infer<typeof removedById>> => {
      const id = actionSubjectId(request, 'storage_fault_id');
      if (!(await deps.storageFaults.remove(id)))
        throw new ApiError('RES_NOT_FOUND', 'Falha de armazenamento nao encontrada.');
      return { id, removida: true as const };
    },
  );

  app.delete(
    '/storage-faults',
    { config: { consoleAction: 'storage_fault.clear' } },
    async (): Promise<z.infer<typeof removedAll>> => ({ removidas: await deps.storageFaults.clear() }),
  );
}
