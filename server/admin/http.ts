import type { FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { idParams } from '../../contracts/admin/common.ts';
import { ApiError, invalidParam, type ErrorCode } from '../errors.ts';
import { ServiceError, type ServiceErrorCode } from '../service-error.ts';

/** Validates with a shared schema; failures become 400 VAL_INVALID_PARAM with every failing field listed. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  const lista = result.error.issues.map((issue) => ({ field: issue.path.join('.') || 'body', msg: issue.message }));
  const message =
    lista.length === 1
      ? `Parametro invalido: ${lista[0].field}. ${lista[0].msg}`
      : `${lista.length} campos precisam de atencao.`;
  throw new ApiError('VAL_INVALID_PARAM', message, { field: lista[0].field, lista });
}

/** What a route that takes no body accepts: anything sent with it is refused past 1 KiB. */
export const NO_BODY = 1024;

/**
 * A query parsed strictly by an object schema: a parameter it does not name is a 400 naming the accepted ones,
 * never a silently wider answer.
 */
export function parseStrictQuery<S extends z.ZodObject<z.ZodRawShape>>(schema: S, query: unknown): z.output<S> {
  const accepted = Object.keys(schema.shape);
  const unknown = Object.keys((query as Record<string, unknown> | null) ?? {}).filter((k) => !accepted.includes(k));
  if (unknown.length > 0)
    throw invalidParam(unknown[0], `Parametro de query nao aceito: ${unknown[0]}. Aceitos: ${accepted.join(', ')}.`, {
      campos_aceitos: accepted,
    });
  return parseInput(schema, query);
}

/**
 * The `:id` a console action is aimed at, named in the action's journal entry (`detail[field]`) before anything
 * else runs, so that a refused action still records its subject.
 */
export function actionSubjectId(request: FastifyRequest, field: string): number {
  const { id } = parseInput(idParams, request.params);
  request.adminAudit = { detail: { [field]: id } };
  return id;
}

/** The console API's answer to each refusal of a service (the message, in the operator's English, goes along). */
const SERVICE_ERROR_CODES: Record<ServiceErrorCode, ErrorCode> = {
  tenant_not_found: 'RES_NOT_FOUND',
  key_not_found: 'RES_NOT_FOUND',
  key_revoked: 'INVALID_STATE',
  tenant_exists: 'CONFLICT',
  invalid_input: 'VAL_INVALID_PARAM',
};

/** Maps a service's refusal to the gateway's error by its code. */
export function fromServiceError(error: unknown): never {
  if (error instanceof ServiceError)
    throw new ApiError(SERVICE_ERROR_CODES[error.code], error.message, error.field ? { field: error.field } : null);
  // backend-sim's "tenant unknown/unopenable" is a 401 on /v1; here it must not look like a lost session.
  if (error instanceof ApiError && error.code === 'AUTH_TENANT_OPEN_FAILED') {
    throw new ApiError('SERVICE_UNAVAILABLE', 'O banco da clinica nao pode ser aberto no backend.');
  }
  throw error;
}

export async function guard<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    fromServiceError(error);
  }
}
