import type { FastifyInstance, FastifyRequest } from 'fastify';
import { stageDone, stageStart } from '../shared-node/critical-path.ts';
import { markerLookupRequest, type MarkerLookupResponse } from '../contracts/backend/idempotency-markers.ts';
import { INTERNAL_HEADERS } from '../contracts/backend/headers.ts';
import { recordedOutcome, WriteScope } from './db/idempotent-dialect.ts';
import { queryRows } from './db/statements.ts';
import { BackendError } from './errors.ts';
import { parse } from './lib/http.ts';

/** Sent by the gateway on every write it executes under an Idempotency-Key (server/idempotency/idempotency-plugin.ts). */
export const IDEMPOTENCY_TOKEN_HEADER = INTERNAL_HEADERS.idempotencyToken;
/** Set on an answer replayed from a marker instead of executed. */
export const IDEMPOTENT_REPLAY_HEADER = INTERNAL_HEADERS.idempotentReplay;
const TOKEN_PATTERN = /^[0-9a-f]{64}$/;

const WRITE = Symbol('idempotentWrite');

interface RunningWrite {
  scope: WriteScope;
  /** Lets the next request with the same token proceed (it will find this one's marker, if it wrote). */
  release: () => void;
  /** stageStart() when the write began (0 with the critical path untimed). */
  started: number;
}

type WithWrite = FastifyRequest & { [WRITE]?: RunningWrite | null };

/**
 * Exactly once for the gateway's writes, generically (no domain function knows about it): a write
 * request carrying `x-idempotency-token` either replays the answer recorded for that token in the
 * tenant database, or executes in a WriteScope, whose driver commits the write together with the
 * marker and the response (backend-sim/db/idempotent-dialect.ts). Requests with the same token run
 * one at a time, so a retry arriving while the first is still executing waits for it and replays it.
 * Registered in the tenant scope, after the hook that opens the tenant database; also answers which
 * markers the database holds (`POST /tenants/:slug/idempotency-markers/lookup`, the gateway's start check).
 */
export function registerWriteIdempotency(scope: FastifyInstance, clock: () => number): void {
  const running = new Map<string, Promise<void>>();

  /** Waits until no other request of this tenant runs `key`, then takes it (check and take in one tick). */
  const take = async (key: string): Promise<() => void> => {
    for (;;) {
      const current = running.get(key);
      if (!current) break;
      await current;
    }
    let resolve!: () => void;
    const turn = new Promise<void>((r) => (resolve = r));
    running.set(key, turn);
    return () => {
      if (running.get(key) === turn) running.delete(key);
      resolve();
    };
  };

  // Callback style: `done` runs the handler synchronously, inside the WriteScope's async context.
  scope.addHook('preHandler', (req, reply, done) => {
    const header = req.headers[IDEMPOTENCY_TOKEN_HEADER];
    if (header === undefined || req.method === 'GET' || req.method === 'HEAD') return done();
    const token = Array.isArray(header) ? header[0] : header;
    if (!TOKEN_PATTERN.test(token)) {
      return done(
        new BackendError('VAL_INVALID_PARAM', 'Token de idempotencia invalido.', { field: IDEMPOTENCY_TOKEN_HEADER }),
      );
    }
    const path = req.url.split('?', 1)[0];
    take(`${req.tenantSlug}\n${token}`).then(
      (release) => {
        let recorded: ReturnType<typeof recordedOutcome>;
        try {
          recorded = recordedOutcome(req.tenant.sqlite, token, clock());
        } catch (error) {
          release();
          return done(error as Error);
        }
        if (recorded) {
          release();
          if (recorded.method !== req.method || recorded.path !== path || recorded.status === null) {
            // Never expected: the token names one operation, and a marker always commits with its answer.
            return done(
              new BackendError('INTERNAL_ERROR', 'Resultado registrado da escrita idempotente indisponivel.'),
            );
          }
          reply
            .code(recorded.status)
            .header('content-type', recorded.content_type ?? 'application/json; charset=utf-8')
            .header(IDEMPOTENT_REPLAY_HEADER, 'true')
            .send(recorded.response ?? '');
          return;
        }
        const write: RunningWrite = {
          scope: new WriteScope(token, req.method, path, clock),
          release,
          started: stageStart(),
        };
        (req as WithWrite)[WRITE] = write;
        write.scope.run(() => done());
      },
      (error: Error) => done(error),
    );
  });

  scope.addHook('onSend', async (req, reply, payload) => {
    const write = (req as WithWrite)[WRITE];
    if (!write) return payload;
    (req as WithWrite)[WRITE] = null;
    try {
      const body = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : null;
      const contentType = reply.getHeader('content-type');
      // Sent once committed; a failed commit becomes this request's 500 (the error handler answers; nothing was written).
      await write.scope.finish({
        status: reply.statusCode,
        contentType: contentType === undefined ? null : String(contentType),
        body,
      });
      stageDone('backend.write (scope opened to committed)', write.started);
    } finally {
      write.release();
    }
    return payload;
  });

  // The gateway's start-time consistency check (contracts/backend/idempotency-markers.ts): which of the
  // writes it acknowledged this database still holds. A marker commits with its write, so a write lost
  // (a damaged WAL) takes its marker with it.
  scope.post('/idempotency-markers/lookup', async (req) => {
    const { tokens } = parse(markerLookupRequest, req.body);
    // Through the tenant's connection: a group of writes still waiting for its commit commits first.
    const known = (
      await queryRows<{ token: string }>(
        req.tenant.db,
        'SELECT token FROM idempotency_markers WHERE token IN (SELECT value FROM json_each(?))',
        [JSON.stringify(tokens)],
      )
    ).map((r) => r.token);
    const data: MarkerLookupResponse = { known };
    return { data, meta: {} };
  });

  // Only if onSend never ran (no answer was produced): nothing is recorded, the writes are undone.
  scope.addHook('onResponse', async (req) => {
    const write = (req as WithWrite)[WRITE];
    if (!write) return;
    (req as WithWrite)[WRITE] = null;
    try {
      write.scope.abandon();
    } finally {
      write.release();
    }
  });
}
