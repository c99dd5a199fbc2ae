/**
 * The console API's schemas live in contracts/admin/ (one definition for both ends); this file keeps the
 * names older imports use (the CLI's).
 */
export { ALL_SCOPES, SCOPE_PRESETS, scopeSchema, issueKeySchema, updateKeySchema, type IssueKeyInput, type UpdateKeyInput } from '../../contracts/admin/keys.ts';
export { TENANT_SLUG_PATTERN as TENANT_SLUG_REGEX } from '../../contracts/backend/tenants.ts';
export { loginSchema, changePasswordSchema, type LoginInput, type ChangePasswordInput } from '../../contracts/admin/auth.ts';
export { createTenantSchema, tenantSettingsSchema, type CreateTenantInput, type TenantSettingsInput } from '../../contracts/admin/tenants.ts';
export { FAULT_KINDS, FAULT_METHODS, faultSchema, type FaultInput } from '../../contracts/admin/faults.ts';
export { auditQuerySchema, unattributedQuerySchema, type AuditQuery, type UnattributedQuery } from '../../contracts/admin/audit.ts';
export {
  OPERATOR_ROLES,
  OPERATOR_USERNAME_REGEX,
  OPERATOR_PASSWORD_MIN,
  operatorRoleSchema,
  createOperatorSchema,
  updateOperatorSchema,
  type OperatorRole,
  type OperatorView,
  type CreateOperatorInput,
  type UpdateOperatorInput,
} from '../../contracts/admin/operators.ts';
