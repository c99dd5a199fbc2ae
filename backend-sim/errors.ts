import { BACKEND_ERROR_STATUS, type BackendErrorCode } from '../contracts/errors.ts';

/** backend-sim answers only the codes of contracts/errors.ts, each with the status given there. */
export type ErrorCode = BackendErrorCode;

/** The one error type: handlers throw it, the error handler writes the envelope. */
export class BackendError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: Record<string, unknown> | null = null,
  ) {
    super(message);
    this.status = BACKEND_ERROR_STATUS[code];
  }
}

export const notFound = () => new BackendError('RES_NOT_FOUND', 'Recurso nao encontrado.');

/** The row a lookup found, or 404 RES_NOT_FOUND (a row hidden from the caller looks the same as a missing one). */
export function found<T>(row: T | null | undefined): T {
  if (!row) throw notFound();
  return row;
}

/** The backend's error body: `{error: {code, message, details}}` with the table's status. */
export function sendError(reply: { status(code: number): { send(body: unknown): unknown } }, err: BackendError) {
  return reply.status(err.status).send({ error: { code: err.code, message: err.message, details: err.details } });
}
