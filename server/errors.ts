/**
 * The one error type of the gateway. Handlers and plugins throw it; the envelope plugin's
 * error handler is the only place that writes an error body.
 */
export const ERROR_STATUS = {
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
  // Console API (operator session), not part of the public contract.
  ADMIN_UNAUTHENTICATED: 401,
  ADMIN_CSRF_INVALID: 403,
  ADMIN_LOCKED: 429,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export type ErrorDetails = Record<string, unknown> | null;

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: ErrorDetails;
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    message: string,
    details: ErrorDetails = null,
    options: { status?: number; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = options.status ?? ERROR_STATUS[code];
    this.details = details;
    this.headers = options.headers ?? {};
  }
}

export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.hasOwn(ERROR_STATUS, code);
}

/** 400 VAL_INVALID_PARAM naming the offending field, the most common error of the API. */
export function invalidParam(field: string, message: string, extra: Record<string, unknown> = {}): ApiError {
  return new ApiError('VAL_INVALID_PARAM', message, { field, ...extra });
}

export const notFound = (): ApiError => new ApiError('RES_NOT_FOUND', 'Recurso nao encontrado.');
