import type { FastifyRequest } from 'fastify';
import type { BackendCallContext } from '../backend/client.ts';

/** Who is calling, as backend-sim needs it: key id for attribution, doctor for the auto-filter. */
export function backendContext(request: FastifyRequest): BackendCallContext {
  const auth = request.auth!;
  return { chaveId: auth.chaveId, medicoFiltroId: auth.medicoId, requestId: request.id };
}

/** `/tenants/<slug>` + path: the tenant's subtree in backend-sim. */
export function tenantPath(request: FastifyRequest, path: string): string {
  return `/tenants/${request.auth!.tenantSlug}${path}`;
}
