/**
 * Every error code the gateway, backend-sim and the console speak, with its HTTP status.
 * One table: the gateway's ApiError and backend-sim's BackendError both take their codes from here.
 * No Node imports: the console bundles this file.
 */

/** The spec's codes (01 § Errors) plus the gateway's own 429 and 500. */
export const API_ERROR_STATUS = {
  VAL_INVALID_PARAM: 400,
  VAL_BACKEND: 400,
  VAL_FILE_TOO_LARGE: 400,
  AUTH_MISSING_HEADER: 401,
  AUTH_INVALID_API_KEY_FORMAT: 401,
  AUTH_INVALID_TIMESTAMP: 401,
  AUTH_TIMESTAMP_EXPIRED: 401,
  AUTH_KEY_NOT_FOUND: 401,
  AUTH_TENANT_OPEN_FAILED: 401,
  AUTH_KEY_REVOKED: 401,
  AUTH_KEY_LEGACY: 401,
  AUTH_INVALID_SIGNATURE: 401,
  AUTH_INSUFFICIENT_SCOPE: 403,
  OPERATION_NOT_ALLOWED: 403,
  RES_NOT_FOUND: 404,
  NOT_FOUND: 404,
  RES_ARQUIVO_NAO_DISPONIVEL: 404,
  METHOD_NOT_ALLOWED: 405,
  CONCURRENT_REQUEST: 409,
  EXAME_LAUDO_CENTRAL: 409,
  IDEMPOTENCY_CONFLICT: 422,
  CONFLICT: 422,
  DUPLICATE: 422,
  BUSINESS_RULE: 422,
  INVALID_STATE: 422,
  CPF_ALREADY_EXISTS: 422,
  MEDICAL_RECORD_ALREADY_EXISTS: 422,
  USUARIO_ALREADY_EXISTS: 422,
  PACIENTES_UNIFICACAO_MESMO_ID: 422,
  REPORT_ALREADY_EXISTS: 422,
  INVALID_REFERENCE: 422,
  VALIDATION_ERROR: 422,
  RESOLUTION_NOT_FOUND: 422,
  RESOLUTION_AMBIGUOUS: 422,
  PARAM_CONFLICT: 422,
  RATE_LIMIT_EXCEEDED: 429,
  INTERNAL_ERROR: 500,
  RES_ARQUIVO_S3_FALHA: 500,
  BACKEND_CENTRAL_SYNC: 502,
  SERVICE_UNAVAILABLE: 503,
  SERVICE_TIMEOUT: 504,
} as const;

/** Console API (operator session): not part of the public contract. */
export const CONSOLE_ERROR_STATUS = {
  ADMIN_UNAUTHENTICATED: 401,
  ADMIN_CSRF_INVALID: 403,
  ADMIN_FORBIDDEN: 403,
  ADMIN_LOCKED: 429,
} as const;

export const ERROR_STATUS = { ...API_ERROR_STATUS, ...CONSOLE_ERROR_STATUS } as const;
export type ErrorCode = keyof typeof ERROR_STATUS;
export type ApiErrorCode = keyof typeof API_ERROR_STATUS;

/**
 * What backend-sim may answer. Public codes are passed through to the integrator as they are;
 * the internal ones each have one fixed meaning for the gateway (BACKEND_INTERNAL_OUTCOME).
 */
export const BACKEND_PASSTHROUGH_CODES = [
  'VAL_INVALID_PARAM',
  'VAL_BACKEND',
  'VAL_FILE_TOO_LARGE',
  'RES_NOT_FOUND',
  'NOT_FOUND',
  'RES_ARQUIVO_NAO_DISPONIVEL',
  'EXAME_LAUDO_CENTRAL',
  'CONFLICT',
  'DUPLICATE',
  'BUSINESS_RULE',
  'INVALID_STATE',
  'CPF_ALREADY_EXISTS',
  'MEDICAL_RECORD_ALREADY_EXISTS',
  'USUARIO_ALREADY_EXISTS',
  'PACIENTES_UNIFICACAO_MESMO_ID',
  'REPORT_ALREADY_EXISTS',
  'INVALID_REFERENCE',
  'VALIDATION_ERROR',
  'OPERATION_NOT_ALLOWED',
  'BACKEND_CENTRAL_SYNC',
] as const satisfies readonly ApiErrorCode[];

/** backend-sim's own codes and the public code each one becomes at the gateway. */
export const BACKEND_INTERNAL_OUTCOME = {
  /** The gateway's internal credential was refused: spec "backend rejected the gateway's internal authentication". */
  INTERNAL_AUTH_FAILED: { status: 401, becomes: 'SERVICE_UNAVAILABLE' },
  TENANT_NOT_FOUND: { status: 404, becomes: 'AUTH_TENANT_OPEN_FAILED' },
  TENANT_OPEN_FAILED: { status: 500, becomes: 'AUTH_TENANT_OPEN_FAILED' },
  /** A backend route the gateway called does not exist: a gateway bug, answered as the backend's unclassified failure. */
  ROUTE_NOT_FOUND: { status: 404, becomes: 'SERVICE_UNAVAILABLE' },
  METHOD_NOT_ALLOWED: { status: 405, becomes: 'SERVICE_UNAVAILABLE' },
  INTERNAL_ERROR: { status: 500, becomes: 'SERVICE_UNAVAILABLE' },
  FAULT_INJECTED: { status: 500, becomes: 'SERVICE_UNAVAILABLE' },
  /** The clinic is being restored from a snapshot and did not come back within the wait (backend-sim/tenant-gate.ts). */
  TENANT_BUSY: { status: 503, becomes: 'SERVICE_UNAVAILABLE' },
} as const satisfies Record<string, { status: number; becomes: ApiErrorCode }>;

export type BackendPassthroughCode = (typeof BACKEND_PASSTHROUGH_CODES)[number];
export type BackendInternalCode = keyof typeof BACKEND_INTERNAL_OUTCOME;
export type BackendErrorCode = BackendPassthroughCode | BackendInternalCode;

export const BACKEND_ERROR_STATUS: Record<BackendErrorCode, number> = {
  ...(Object.fromEntries(BACKEND_PASSTHROUGH_CODES.map((code) => [code, API_ERROR_STATUS[code]])) as Record<
    BackendPassthroughCode,
    number
  >),
  ...(Object.fromEntries(Object.entries(BACKEND_INTERNAL_OUTCOME).map(([code, o]) => [code, o.status])) as Record<
    BackendInternalCode,
    number
  >),
};

export function isBackendErrorCode(code: unknown): code is BackendErrorCode {
  return typeof code === 'string' && Object.hasOwn(BACKEND_ERROR_STATUS, code);
}
