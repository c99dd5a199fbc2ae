import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AdminDeps } from '../deps.ts';
import { actionSubjectId, guard, parseInput } from '../http.ts';
import { removedAll, type removedById } from '../../../contracts/admin/common.ts';
import { faultSchema, type FaultInput, type FaultView } from '../../../contracts/admin/faults.ts';
import { backendFault, type BackendFault, type backendFaultInput } from '../../../contracts/backend/admin.ts';

/** `/v1/pacientes*` → backend-sim's `GET /tenants/*\/pacientes*` (the tenant is matched separately). */
export function toBackendRoute(input: Pick<FaultInput, 'method' | 'path'>): string {
  return `${input.method} /tenants/*/${input.path.replace(/^\/v1\//, '')}`;
}

/** The reverse, for display; routes created elsewhere (tests, curl) are shown as they are. */
export function fromBackendRoute(route: string): { method: string; path: string } {
  const m = /^(\S+) \/tenants\/\*\/(.*)$/.exec(route);
  return m ? { method: m[1], path: `/v1/${m[2]}` } : { method: '*', path: route };
}

const view = (f: BackendFault): FaultView => ({
  id: f.id,
  tenant: f.tenant,
  ...fromBackendRoute(f.route),
  route: f.route,
  kind: f.kind ?? 'latency',
  latency_ms: f.latency_ms,
  failure_rate: f.failure_rate,
  criado_em: f.criado_em,
  hits: f.hits,
});

export default async function faultRoutes(app: FastifyInstance, deps: AdminDeps): Promise<void> {
  app.get('/faults', async (): Promise<FaultView[]> => {
    const result = await guard(() =>
      deps.backend.call({ method: 'GET', path: '/admin/faults' }, z.array(backendFault)),
    );
    return result.data.map(view);
  });

  app.post('/faults', { config: { consoleAction: 'fault.create' } }, async (request, reply): Promise<FaultView> => {
    const input = parseInput(faultSchema, request.body);
    const tenant = input.tenant === '*' ? null : await deps.tenants.get(input.tenant);
    request.adminAudit = { tenantId: tenant?.id ?? null, tenantSlug: tenant?.slug ?? null };
    const result = await guard(() =>
      deps.backend.call(
        {
          method: 'POST',
          path: '/admin/faults',
          body: {
            ...(input.tenant === '*' ? {} : { tenant: input.tenant }),
            route: toBackendRoute(input),
            latency_ms: input.latency_ms,
            failure_rate: input.failure_rate,
            ...(input.kind === 'latency' ? {} : { kind: input.kind }),
          } satisfies z.input<typeof backendFaultInput>,
        },
        backendFault,
      ),
    );
    request.adminAudit = { ...request.adminAudit, detail: { fault_id: result.data.id } };
    reply.status(201);
    return view(result.data);
  });

  app.delete(
    '/faults/:id',
    { config: { consoleAction: 'fault.delete' } },
    async (request): Promise<z.infer<typeof removedById>> => {
      const id = actionSubjectId(request, 'fault_id');
      await guard(() => deps.backend.call({ method: 'DELETE', path: `/admin/faults/${id}` }, z.unknown()));
      return { id, removida: true as const };
    },
  );

  app.delete('/faults', { config: { consoleAction: 'fault.clear' } }, async (): Promise<z.infer<typeof removedAll>> => {
    const result = await guard(() => deps.backend.call({ method: 'DELETE', path: '/admin/faults' }, removedAll));
    return result.data;
  });
}
