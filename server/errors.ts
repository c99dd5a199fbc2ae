import { ERROR_STATUS, type ErrorCode } from '../contracts/errors.ts';

export { ERROR_STATUS, type ErrorCode };

export type ErrorDetails = Record<string, unknown> | null;

/**
 * The one error type of the gateway. Handlers and plugins throw it; the envelope plugin's
 * error handler is the only place that writes an error body. Codes and statuses: contracts/errors.ts.
 */
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

/** 400 VAL_INVALID_PARAM naming the offending field, the most common error of the API. */
export function invalidParam(field: string, message: string, extra: Record<string, unknown> = {}): ApiError {
  return new ApiError('VAL_INVALID_PARAM', message, { field, ...extra });
}

export const notFound = (): ApiError => new ApiError('RES_NOT_FOUND', 'Recurso nao encontrado.');
