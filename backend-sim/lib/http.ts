import type { FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { BackendError } from '../errors.ts';
import { INTERNAL_HEADERS } from '../../contracts/backend/headers.ts';
import { idParam } from './schemas.ts';

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

// ---------------------------------------------------------------- route handlers
// A route parses, calls a service and answers its result in the envelope `{data, meta}`: these write the last
// part once. The services throw BackendError; the app's error handler writes the error envelope.

/** The `:id` of the path, parsed (a malformed id is the contract bug `parse` reports). */
export const idOf = (req: FastifyRequest): number => parse(idParam, req.params).id;

/** A list: its query parsed by `schema`, the service's page answered with its total in `meta`. */
export function listRoute<S extends z.ZodType>(schema: S, list: (req: FastifyRequest, query: z.infer<S>) => Promise<{ data: unknown[]; total: number }>) {
  return async (req: FastifyRequest) => {
    const { data, total } = await list(req, parse(schema, req.query));
    return { data, meta: { total } };
  };
}

/** A list below one item (`/pacientes/:id/prontuarios`): the item's `:id` parsed first, then the query. */
export function listOfItemRoute<S extends z.ZodType>(
  schema: S,
  list: (req: FastifyRequest, id: number, query: z.infer<S>) => Promise<{ data: unknown[]; total: number }>,
) {
  return async (req: FastifyRequest) => {
    const id = idOf(req);
    return listRoute(schema, (r, query) => list(r, id, query))(req);
  };
}

/** One item (a detail, the result of an update or an action): the service's answer, 200. */
export function itemRoute(answer: (req: FastifyRequest) => Promise<unknown>) {
  return async (req: FastifyRequest) => ({ data: await answer(req), meta: {} });
}

/** A create: the service's answer, 201. */
export function createdRoute(create: (req: FastifyRequest) => Promise<unknown>) {
  return async (req: FastifyRequest, reply: FastifyReply) => reply.status(201).send({ data: await create(req), meta: {} });
}

