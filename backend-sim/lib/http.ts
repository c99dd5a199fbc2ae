import type { FastifyReply, FastifyRequest, RouteShorthandOptionsWithHandler } from 'fastify';
import { z } from 'zod';
import type { Db } from '../db/database.ts';
import { BackendError } from '../errors.ts';
import { INTERNAL_HEADERS } from '../../contracts/backend/headers.ts';
import { contractOf } from '../../shared-node/contract-stamp.ts';
import { idParam } from './schemas.ts';
import { JsonPage } from '../db/json-page.ts';

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
//
// A read given the contract schema of its `data` (contracts/schemas, the schema the gateway parses that answer
// with) answers it parsed by that schema, written by a serializer Fastify compiles from it, `meta` first, with
// the schema's stamp in `x-contract-schema`: the gateway relays such a `data` without parsing it (docs/decisions.md
// HOP1). An answer its own schema refuses goes out as it is and unstamped, for the gateway to refuse.

/** The `:id` of the path, parsed (a malformed id is the contract bug `parse` reports). */
export const idOf = (req: FastifyRequest): number => parse(idParam, req.params).id;

type Answer = { data: unknown; meta: { total?: number } };
type Route = RouteShorthandOptionsWithHandler;

/**
 * The route of a read answering `answer(req)`, checked, serialized and stamped by `contract` when given; a list's
 * `data` may come as a `JsonPage` of its `item` schema, already written and checked by SQLite (decisions L32-1).
 */
function readRoute(answer: (req: FastifyRequest) => Promise<Answer>, contract?: z.ZodType, item?: z.ZodType): Route {
  const stamped = contract ? contractOf(contract) : null;
  if (!contract || !stamped)
    return {
      handler: async (req) => {
        const answered = await answer(req);
        return answered.data instanceof JsonPage ? { ...answered, data: JSON.parse(answered.data.text) } : answered;
      },
    };
  const envelope = {
    type: 'object',
    properties: {
      meta: { type: 'object', properties: { total: { type: 'integer' } } },
      data: stamped.serialization ?? {},
    },
  };
  return {
    // Without a serializer schema (a `$ref`), `data` is written by JSON.stringify, still `meta` first.
    ...(stamped.serialization ? { schema: { response: { 200: envelope } } } : {}),
    handler: async (req, reply) => {
      const { data, meta } = await answer(req);
      if (data instanceof JsonPage) {
        // Generated from this route's own item schema, or not stamped at all.
        if (data.item !== item) throw new Error('a page written for another schema');
        reply.header(INTERNAL_HEADERS.contractSchema, stamped.stamp);
        // What the compiled serializer writes for `{meta: {total}, data}`: `meta` first, `total` an integer.
        return reply
          .type('application/json; charset=utf-8')
          .send(`{"meta":{"total":${Math.trunc(meta.total ?? 0)}},"data":${data.text}}`);
      }
      const checked = contract.safeParse(data);
      if (!checked.success) {
        req.log.error({ issues: checked.error.issues }, 'answer outside its contract schema');
        return reply.type('application/json; charset=utf-8').send(JSON.stringify({ data, meta }));
      }
      reply.header(INTERNAL_HEADERS.contractSchema, stamped.stamp);
      return { meta, data: checked.data };
    },
  };
}

/** A page of a list: its items, or their JSON written by SQLite (`JsonPage`, decisions L32-1). */
export type Listed = { data: unknown[] | JsonPage; total: number };

/** A list: its query parsed by `schema`, the service's page answered with its total in `meta`; `item`: the contract of each item. */
export function listRoute<S extends z.ZodType>(
  schema: S,
  list: (req: FastifyRequest, query: z.infer<S>) => Promise<Listed>,
  item?: z.ZodType,
): Route {
  return readRoute(
    async (req) => {
      const { data, total } = await list(req, parse(schema, req.query));
      return { data, meta: { total } };
    },
    item && z.array(item),
    item,
  );
}

/** A list below one item (`/pacientes/:id/prontuarios`): the item's `:id` parsed first, then the query. */
export function listOfItemRoute<S extends z.ZodType>(
  schema: S,
  list: (req: FastifyRequest, id: number, query: z.infer<S>) => Promise<Listed>,
  item?: z.ZodType,
): Route {
  return readRoute(
    async (req) => {
      const id = idOf(req);
      const { data, total } = await list(req, id, parse(schema, req.query));
      return { data, meta: { total } };
    },
    item && z.array(item),
    item,
  );
}

/** One item (a detail, the result of an update or an action): the service's answer, 200; `contract`: the schema of a read's item. */
export function itemRoute(answer: (req: FastifyRequest) => Promise<unknown>, contract?: z.ZodType): Route {
  return readRoute(async (req) => ({ data: await answer(req), meta: {} }), contract);
}

/** A create: the service's answer, 201. */
export function createdRoute(create: (req: FastifyRequest) => Promise<unknown>) {
  return async (req: FastifyRequest, reply: FastifyReply) =>
    reply.status(201).send({ data: await create(req), meta: {} });
}

// ---------------------------------------------------------------- a service as its route
// Most routes call one service with the tenant's database and what the request carries, in this order: the
// path's `:id`, the parsed query or body, the call context (what a bound key may see, who writes), the clock.
// These pass them, so such a route names its service and schemas only.

/** A list the same for every key (catalogs, lookups): `list(db, query)`. */
export const catalogRoute = <S extends z.ZodType>(
  schema: S,
  list: (db: Db, query: z.infer<S>) => Promise<Listed>,
  item?: z.ZodType,
): Route => listRoute(schema, (req, query) => list(req.tenant.db, query), item);

/** A list of what the calling key may see: `list(db, query, call)`. */
export const visibleListRoute = <S extends z.ZodType>(
  schema: S,
  list: (db: Db, query: z.infer<S>, call: CallContext) => Promise<Listed>,
  item?: z.ZodType,
): Route => listRoute(schema, (req, query) => list(req.tenant.db, query, callContext(req)), item);

/** The item of the path's `:id`: `get(db, id)`. */
export const byIdRoute = (get: (db: Db, id: number) => Promise<unknown>, contract?: z.ZodType): Route =>
  itemRoute((req) => get(req.tenant.db, idOf(req)), contract);

/** The item of the path's `:id`, when the calling key may see it: `get(db, id, call)`. */
export const visibleByIdRoute = (
  get: (db: Db, id: number, call: CallContext) => Promise<unknown>,
  contract?: z.ZodType,
): Route => itemRoute((req) => get(req.tenant.db, idOf(req), callContext(req)), contract);

/** A create from the body parsed by `schema`, at the instant `at()` reads: `create(db, input, call, at)`, 201. */
export const createFromBody = <S extends z.ZodType, At>(
  schema: S,
  create: (db: Db, input: z.infer<S>, call: CallContext, at: At) => Promise<unknown>,
  at: () => At,
) => createdRoute((req) => create(req.tenant.db, parse(schema, req.body), callContext(req), at()));

/** A write to the item of the path's `:id` from the body parsed by `schema`: `write(db, id, input, call, at)`. */
export const writeByIdFromBody = <S extends z.ZodType, At>(
  schema: S,
  write: (db: Db, id: number, input: z.infer<S>, call: CallContext, at: At) => Promise<unknown>,
  at: () => At,
): Route => itemRoute((req) => write(req.tenant.db, idOf(req), parse(schema, req.body), callContext(req), at()));
