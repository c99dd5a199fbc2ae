import type { z } from 'zod';
import { ApiError } from '../errors.ts';
import { KeyServiceError } from '../keys/keys.service.ts';
import { TenantServiceError } from '../tenants/tenants.service.ts';

/** Validates with a shared schema; failures become 400 VAL_INVALID_PARAM with every failing field listed. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  const lista = result.error.issues.map((issue) => ({ field: issue.path.join('.') || 'body', msg: issue.message }));
  const message = lista.length === 1 ? `Parametro invalido: ${lista[0].field}. ${lista[0].msg}` : `${lista.length} campos precisam de atencao.`;
  throw new ApiError('VAL_INVALID_PARAM', message, { field: lista[0].field, lista });
}

/** Service errors carry English operator messages; map them to the gateway's codes. */
export function fromServiceError(error: unknown): never {
  if (error instanceof KeyServiceError || error instanceof TenantServiceError) {
    const message = error.message;
    if (/does not exist/.test(message)) throw new ApiError('RES_NOT_FOUND', message);
    if (/revoked/.test(message)) throw new ApiError('INVALID_STATE', message);
    if (/already exists/.test(message)) throw new ApiError('CONFLICT', message);
    throw new ApiError('VAL_INVALID_PARAM', message);
  }
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
