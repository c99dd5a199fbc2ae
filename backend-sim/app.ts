import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { timingSafeEqual } from 'node:crypto';
import type { BackendConfig } from './config.ts';
import type { TenantDatabase } from './db/database.ts';
import { BackendError, sendError } from './errors.ts';
import { INTERNAL_HEADERS } from '../contracts/backend/headers.ts';
import { FaultStore, type Fault } from './faults.ts';
import { registerWriteIdempotency } from './idempotency.ts';
import { isoDate, isoSeconds } from './lib/time.ts';
import { adminRoutes } from './routes/admin.ts';
import { agendaRoutes } from './routes/agenda.ts';
import { catalogoRoutes } from './routes/catalogos.ts';
import { ClockOffset, clockRoutes } from './routes/clock.ts';
import { exameRoutes } from './routes/exames.ts';
import { healthRoutes } from './routes/health.ts';
import { laudoRoutes } from './routes/laudos.ts';
import { medicoRoutes } from './routes/medicos.ts';
import { pacienteRoutes } from './routes/pacientes.ts';
import { prontuarioRoutes } from './routes/prontuarios.ts';
import { FileStore } from './storage.ts';
import { TenantRegistry } from './tenants.ts';
import { TenantGate } from './tenant-gate.ts';
import type { BackendDeps } from './deps.ts';
import { registerTracing } from './tracing.ts';

declare module 'fastify' {
  interface FastifyRequest {
    tenant: TenantDatabase;
    tenantSlug: string;
  }
}

function tokenMatches(sent: string | string[] | undefined, expected: string): boolean {
  const value = Array.isArray(sent) ? sent[0] : sent;
  if (!value) return false;
  const a = Buffer.from(value);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Applies a matching fault: its latency, then (at its failure rate) its failure. True when the request was answered or hijacked. */
async function injectFault(fault: Fault, req: FastifyRequest, reply: FastifyReply): Promise<boolean> {
  if (fault.latency_ms) await sleep(fault.latency_ms);
  if (!fault.kind || Math.random() >= fault.failure_rate) return false;
  switch (fault.kind) {
    case 'http500':
      sendError(reply, new BackendError('FAULT_INJECTED', 'Falha injetada.', { fault_id: fault.id }));
      return true;
    case 'invalid_json':
      reply.hijack();
      reply.raw.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      reply.raw.end('{"data": {"id": 1, "nome": "trunc');
      return true;
    case 'drop':
      reply.hijack();
      req.raw.socket.destroy();
      return true;
    case 'hang':
      // Never answer; the socket stays open until the client gives up (or the server closes).
      reply.hijack();
      return true;
  }
  return false;
}

export async function buildBackendApp(config: BackendConfig): Promise<FastifyInstance> {
  // The base clock plus the offset a gateway in another process sets (routes/clock.ts; 0 otherwise).
  const clockOffset = new ClockOffset();
  const baseClock = config.now ?? (() => new Date());
  const clock = () => clockOffset.apply(baseClock());
  const deps: BackendDeps = {
    config,
    tenants: new TenantRegistry(config.dataDir),
    faults: new FaultStore(),
    files: new FileStore(config.s3),
    gate: new TenantGate(),
    clock,
    now: () => isoSeconds(clock()),
    today: () => isoDate(clock()),
    stamp: () => {
      const d = clock();
      return { now: isoSeconds(d), today: isoDate(d), hora: d.toISOString().slice(11, 19) };
    },
  };
  const app = Fastify({
    logger: config.logger ?? false,
    // Hung (fault-injected) requests must not keep close() waiting.
    forceCloseConnections: true,
    bodyLimit: 64 * 1024 * 1024,
    routerOptions: { ignoreTrailingSlash: true },
  });
  // First, so the request's span covers every other hook; only when tracing is on (nothing of it is loaded otherwise).
  if (config.tracing) await registerTracing(app, config.tracing);
  app.decorateRequest('tenant', null as unknown as TenantDatabase);
  app.decorateRequest('tenantSlug', '');

  app.setErrorHandler((err: unknown, _req: FastifyRequest, reply: FastifyReply) => {
    if (err instanceof BackendError) return sendError(reply, err);
    const e = err as { statusCode?: number; code?: string; message?: string };
    if (e.statusCode && e.statusCode >= 400 && e.statusCode < 500)
      return sendError(reply, new BackendError('VAL_INVALID_PARAM', 'Requisicao invalida.', { causa: e.code ?? null }));
    reply.log.error(err);
    return sendError(reply, new BackendError('INTERNAL_ERROR', 'Erro interno do backend.'));
  });
  app.setNotFoundHandler((_req, reply) => sendError(reply, new BackendError('ROUTE_NOT_FOUND', 'Rota inexistente.')));

  // The hooks every call runs are in Fastify's callback style: an async hook costs each request a promise and a
  // microtask even when it has nothing to do.
  // Internal credential first: nothing else (faults included) runs for an unauthenticated caller.
  app.addHook('onRequest', (req, reply, done) => {
    if (tokenMatches(req.headers[INTERNAL_HEADERS.token], config.internalToken)) return done();
    sendError(reply, new BackendError('INTERNAL_AUTH_FAILED', 'Credencial interna invalida.'));
  });

  app.addHook('onRequest', (req, reply, done) => {
    const query = req.url.indexOf('?');
    const path = query < 0 ? req.url : req.url.slice(0, query);
    const tenantMatch = /^\/tenants\/([^/]+)/.exec(path);
    // Admin and settings routes are never faulted, so a fault can always be inspected and removed.
    const fault =
      tenantMatch && !path.endsWith('/settings') ? deps.faults.match(req.method, path, tenantMatch[1]) : undefined;
    if (!fault) return done();
    // Answered (or hijacked) by the fault: the request goes no further.
    injectFault(fault, req, reply).then((answered) => (answered ? undefined : done()), done);
  });
  await app.register(adminRoutes(deps));
  await app.register(clockRoutes(clockOffset, clock));
  await app.register(healthRoutes(deps));
  await app.register(
    async (tenantScope) => {
      // Admitted by the clinic's gate (a restore under way holds its requests), left when the answer is out.
      tenantScope.addHook('preHandler', (req, reply, done) => {
        const { slug } = req.params as { slug: string };
        const waiting = deps.gate.enter(slug);
        let left = false;
        const leave = () => {
          if (left) return;
          left = true;
          deps.gate.leave(slug);
        };
        if (!waiting) {
          reply.raw.once('finish', leave).once('close', leave);
          return done();
        }
        waiting.then(() => {
          reply.raw.once('finish', leave).once('close', leave);
          done();
        }, done);
      });
      tenantScope.addHook('preHandler', (req, _reply, done) => {
        const { slug } = req.params as { slug: string };
        req.tenantSlug = slug;
        const opened = deps.tenants.opened(slug);
        if (opened) {
          req.tenant = opened;
          return done();
        }
        deps.tenants.get(slug).then((tenant) => {
          req.tenant = tenant;
          done();
        }, done);
      });
      // Writes the gateway runs under an Idempotency-Key: replayed if recorded, else committed with their answer.
      registerWriteIdempotency(tenantScope, () => clock().getTime());
      for (const routes of [
        pacienteRoutes,
        catalogoRoutes,
        medicoRoutes,
        exameRoutes,
        laudoRoutes,
        agendaRoutes,
        prontuarioRoutes,
      ])
        await tenantScope.register(routes(deps));
    },
    { prefix: '/tenants/:slug' },
  );

  app.addHook('onClose', async () => {
    await deps.tenants.closeAll();
  });
  return app;
}
