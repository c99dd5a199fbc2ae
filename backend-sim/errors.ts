/** Spec error codes (plus internal ones) and the HTTP status each one maps to. */
export const ERROR_STATUS = {
  INTERNAL_AUTH_FAILED: 401,
  TENANT_NOT_FOUND: 404,
  TENANT_OPEN_FAILED: 500,
  VAL_INVALID_PARAM: 400,
  VAL_BACKEND: 400,
  RES_NOT_FOUND: 404,
  NOT_FOUND: 404,
  RES_ARQUIVO_NAO_DISPONIVEL: 404,
  ROUTE_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  EXAME_LAUDO_CENTRAL: 409,
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
  OPERATION_NOT_ALLOWED: 403,
  BACKEND_CENTRAL_SYNC: 502,
  INTERNAL_ERROR: 500,
  FAULT_INJECTED: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** The one error type: handlers throw it, the error handler writes the envelope. */
export class BackendError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: Record<string, unknown> | null = null,
  ) {
    super(message);
    this.status = ERROR_STATUS[code];
  }
}

export const notFound = () => new BackendError('RES_NOT_FOUND', 'Recurso nao encontrado.');
