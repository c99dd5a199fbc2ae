import type { FastifyRequest } from 'fastify';
import type { OperatorRole } from '../../contracts/admin/operators.ts';
import { requiredRole, requireRole, roleSuffices } from '../operators/roles.ts';
import './context.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The least role a console route needs (issue 22). Unset: reads (GET, HEAD) are open to every operator,
     * anything else needs `admin` — a new write route is admin-only unless it says otherwise.
     */
    role?: OperatorRole;
  }
}

/**
 * The role check of the console API's onRequest hook (admin-plugin.ts): the route's required role against
 * the caller's. A refusal is journaled like any console action, under the operator, with both roles.
 */
export function enforceRole(request: FastifyRequest, role: OperatorRole): void {
  const required = requiredRole(request.method, request.routeOptions.config?.role);
  if (roleSuffices(role, required)) return;
  request.adminAudit = { detail: { role, papel_exigido: required } };
  requireRole(role, required);
}
