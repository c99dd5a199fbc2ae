import { ApiError } from '../errors.ts';
import type { OperatorRole } from '../../contracts/admin/operators.ts';

const READ_METHODS = new Set(['GET', 'HEAD']);

/** The role a console API request needs: the route's `role`, else `viewer` for reads and `admin` for writes. */
export function requiredRole(method: string, routeRole: OperatorRole | undefined): OperatorRole {
  return routeRole ?? (READ_METHODS.has(method) ? 'viewer' : 'admin');
}

/** Whether `role` may call a route needing `required` (an admin may call anything). */
export const roleSuffices = (role: OperatorRole, required: OperatorRole): boolean =>
  required === 'viewer' || role === 'admin';

/** 403 ADMIN_FORBIDDEN unless `role` may call a route needing `required`. */
export function requireRole(role: OperatorRole, required: OperatorRole): void {
  if (roleSuffices(role, required)) return;
  throw new ApiError('ADMIN_FORBIDDEN', 'Operador viewer: acesso somente leitura. Esta acao exige um operador admin.', {
    role,
    papel_exigido: required,
  });
}
