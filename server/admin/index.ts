export {
  default as adminPlugin,
  ADMIN_PREFIX,
  SESSION_COOKIE,
  CSRF_HEADER,
  adminPoliciesFromEnv,
  type AdminPluginOptions,
} from './admin-plugin.ts';
export { ensureOperator, setOperatorPassword, attemptLogin, DEFAULT_LOCKOUT, type LockoutPolicy } from './operators.ts';
export {
  buildConsoleAuditEntry,
  insertConsoleAudit,
  writerConsoleAudit,
  type ConsoleAuditEntry,
  type ConsoleAuditSink,
} from './console-audit.ts';
export { hashPassword, verifyPassword, generatePassword } from './password.ts';
export { registerConsoleStatic } from './console-static.ts';
