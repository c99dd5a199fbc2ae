import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, invalidParam } from '../errors.ts';
import { addMeta, replayEnvelope } from '../http/envelope.ts';
import { canonicalBodyHash } from './canonical-hash.ts';
import { syncPayloadHook } from '../http/sync-hooks.ts';
import { operationIdentity, type IdempotencyEntries, type OperationKey } from './idempotency.store.ts';
import { backendWriteToken } from './backend-write-token.ts';
import '../http/request-context.ts';
import { IDEMPOTENCY_KEY_PATTERN } from '../../contracts/idempotency-key.ts';
import { tracedAsyncHook, type StepTracer } from '../tracing/steps.ts';
import { reportCriticalPathAtExit, stageDone, stageStart } from '../../shared-node/critical-path.ts';

export { IDEMPOTENCY_KEY_PATTERN };
/** Response headers replayed with the stored body. */
const REPLAYED_HEADERS = ['location'];

export interface IdempotencyPluginOptions {
  store: IdempotencyEntries;
  /** Tracing on: the reservation (`idempotency.reserve`) gets a span. */
  trace?: StepTracer;
}

/** The writes being executed under their key, with what their backend calls need. */
const executing = new WeakMap<
  FastifyRequest,
  { operation: OperationKey; reply: FastifyReply; writes: number; executed: number }
>();

/**
 * Context for a backend call of `request` (TenantBackend.call): a non-GET call made while the request
 * executes a write under its key carries the token; when backend-sim answers from its record (the
 * write had committed before a crash or a timeout), the answer is marked a replay.
 */
export function backendIdempotency(
  request: FastifyRequest,
  method: string,
): { idempotencyToken: string; onReplay: () => void } | undefined {
  const entry = executing.get(request);
  if (!entry || method === 'GET') return undefined;
  return {
    idempotencyToken: backendWriteToken(entry.operation, entry.writes++),
    onReplay: () => {
      entry.reply.header('idempotency-replay', 'true');
      addMeta(entry.reply, { idempotent_replay: true });
    },
  };
}

/**
 * Records a write's answer under its key (or frees the key). An onSend hook for the root of the app,
 * added before the audit plugin's, so the answer is queued before the audit entry and both go in one
 * commit (IdempotencyStore's `commit`).
 */
export function completeIdempotentWrites(store: IdempotencyEntries) {
  return syncPayloadHook(function completeIdempotentWrite(
    request: FastifyRequest,
    reply: FastifyReply,
    payload: unknown,
  ): unknown {
    const operation = request.idempotentOperation;
    if (!operation) return payload;
    request.idempotentOperation = null;
    const entry = executing.get(request);
    if (entry) stageDone('gateway.execute (handler, backend hop and its commit)', entry.executed);
    const status = reply.statusCode;
    // Final outcomes are kept 24 h (the 503 of a lost backend included, as the spec requires);
    // a timeout or an internal fault frees the key so the client's retry executes.
    if (status < 500 || status === 503) {
      const headers: Record<string, string> = {};
      for (const name of REPLAYED_HEADERS) {
        const value = reply.getHeader(name);
        if (value !== undefined) headers[name] = String(value);
      }
      store.complete(operation, {
        status,
        headers,
        body: typeof payload === 'string' ? payload : String(payload ?? 'null'),
      });
    } else {
      store.release(operation);
    }
    return payload;
  });
}

/**
 * The idempotency contract for every route declaring `config.idempotent` (spec § Idempotency): scoped
 * per API key, a key bound to the operation the router resolved (verb, route pattern, parsed path values:
 * `/1/` and `/%31/` are one operation), replay with the original status, 422 on a different body or on
 * another operation, 409 while the first is in flight, 503 stored and replayed.
 */
export default fp<IdempotencyPluginOptions>(
  async function idempotencyPlugin(app: FastifyInstance, { store, trace }) {
    reportCriticalPathAtExit('gateway');
    // Only on the routes that declare it: the other routes do not pay for a hook per request.
    app.addHook('onRoute', (route) => {
      if (!(route.config as { idempotent?: boolean } | undefined)?.idempotent) return;
      const existing = route.preHandler
        ? Array.isArray(route.preHandler)
          ? route.preHandler
          : [route.preHandler]
        : [];
      route.preHandler = [...existing, reserve];
    });

    const reserve = trace ? tracedAsyncHook(trace, 'idempotency.reserve', reserveOrReplay) : reserveOrReplay;

    async function reserveOrReplay(request: FastifyRequest, reply: FastifyReply) {
      const header = request.headers['idempotency-key'];
      const idemKey = Array.isArray(header) ? header[0] : header;
      if (idemKey === undefined || idemKey === '') {
        throw invalidParam('Idempotency-Key', 'Cabecalho Idempotency-Key obrigatorio em operacoes de escrita.');
      }
      if (!IDEMPOTENCY_KEY_PATTERN.test(idemKey)) {
        throw invalidParam('Idempotency-Key', 'Idempotency-Key deve ter 1 a 64 caracteres [A-Za-z0-9_-].');
      }
      reply.header('idempotency-key', idemKey);
      // A preHandler: the params are the ones the route's schema parsed (`id` the number 1, from `1` or `%31`).
      const requested: OperationKey = {
        chaveId: request.auth!.chaveId,
        idemKey,
        method: request.method,
        path: request.url.split('?', 1)[0],
        operation: operationIdentity(
          request.method,
          request.routeOptions.url ?? request.url.split('?', 1)[0],
          request.params,
        ),
      };
      const reserving = stageStart();
      const reservation = await store.reserve(
        requested,
        canonicalBodyHash(request.body, request.rawBody),
        undefined,
        request.id,
      );
      stageDone('gateway.reserve (reservation and its commit)', reserving);
      switch (reservation.kind) {
        case 'conflict':
          // The journal keeps both fingerprints (keyed HMACs, safe to show): the console lists conflicts with them.
          request.auditDetail = {
            idempotency_conflict: {
              reason: reservation.reason,
              idem_key: idemKey,
              stored: reservation.stored,
              sent_fingerprint: reservation.fingerprint,
            },
          };
          throw new ApiError(
            'IDEMPOTENCY_CONFLICT',
            reservation.reason === 'body'
              ? 'Idempotency-Key ja usada com um corpo diferente.'
              : 'Idempotency-Key ja usada em outra operacao.',
            { field: 'Idempotency-Key' },
          );
        case 'in_flight':
          throw new ApiError(
            'CONCURRENT_REQUEST',
            'Requisicao com esta Idempotency-Key ainda em processamento.',
            null,
            {
              headers: { 'retry-after': '2' },
            },
          );
        case 'replay': {
          const { record } = reservation;
          const headers = JSON.parse(record.response_headers ?? '{}') as Record<string, string>;
          for (const [name, value] of Object.entries(headers)) reply.header(name, value);
          reply.header('idempotency-replay', 'true');
          addMeta(reply, { idempotent_replay: true });
          const envelope = replayEnvelope(request, reply, record.response_body ?? 'null');
          request.errorCode = envelope.error?.code ?? null;
          return reply
            .status(record.status ?? 200)
            .type('application/json; charset=utf-8')
            .send(envelope);
        }
        case 'execute': {
          const operation = reservation.entry;
          request.idempotentOperation = operation;
          executing.set(request, { operation, reply, writes: 0, executed: stageStart() });
          reply.header('idempotency-replay', 'false');
          addMeta(reply, { idempotent_replay: false });
        }
      }
    }
  },
  { name: 'idempotency', dependencies: ['envelope'] },
);
