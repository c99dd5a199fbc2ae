/** Moved to contracts/admin/ (tenants.ts, operator-tokens.ts); the names older imports use (the CLI's). */
export { RESET_KEEPS_JOURNAL, tenantResetSchema, type TenantResetInput, type TenantResetResult, type TenantResetPolicyView } from '../../contracts/admin/tenants.ts';
export {
  OPERATOR_TOKEN_DEFAULT_DAYS,
  OPERATOR_TOKEN_MAX_DAYS,
  ALL_TENANTS,
  issueOperatorTokenSchema,
  type IssueOperatorTokenInput,
  type IssueOperatorToken,
  type OperatorTokenView,
} from '../../contracts/admin/operator-tokens.ts';
