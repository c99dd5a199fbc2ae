import type { FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { BackendError } from '../errors.ts';
import { INTERNAL_HEADERS } from '../../contracts/backend/headers.ts';

/** Context the gateway sends on every tenant call. */
export interface CallContext {
  /** API key id, null when absent or 0. */
  chaveId: number | null;
  /** Doctor bound to the key, 0 = unbound (no auto-filter). */
  medicoFiltroId: number;
}

function intHeader(req: FastifyRequest, name: string): number {
  const raw = req.headers[name];
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (value === undefined || value === '') return 0;
  if (!/^\d+$/.test(value)) throw new BackendError('VAL_INVALID_PARAM', `Cabecalho ${name} invalido.`, { field: name });
  return Number(value);
}

export function callContext(req: FastifyRequest): CallContext {
  const chave = intHeader(req, INTERNAL_HEADERS.chaveId);
  return { chaveId: chave > 0 ? chave : null, medicoFiltroId: intHeader(req, INTERNAL_HEADERS.medicoFiltroId) };
}

/** Parses with zod; the gateway already validated format, so a failure here is a contract bug → 400. */
export function parse<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue.path.join('.') || null;
  throw new BackendError('VAL_INVALID_PARAM', field ? `Parametro invalido: ${field}.` : 'Parametros invalidos.', {
    field,
    lista: result.error.issues.map((i) => ({ field: i.path.join('.'), msg: i.message })),
  });
}

export interface Page {
  limit: number;
  offset: number;
}
