export {
  changeOwnPassword,
  createOperator,
  ensureOperator,
  findOperator,
  listOperators,
  resetOperatorPassword,
  setOperatorPassword,
  tokenOperatorRole,
  updateOperator,
  type OperatorRefusal,
} from './operators.service.ts';
export { attemptLogin, DEFAULT_LOCKOUT, lockoutAddress, type LockoutPolicy, type LoginOutcome } from './lockout.ts';
export { hashPassword, verifyPassword, generatePassword } from './password.ts';
