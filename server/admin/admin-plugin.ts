import cookie from '@fastify/cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.ts';
import { consoleAuditEntryFromRequest } from './console-audit-entry.ts';
import type { ConsoleAuditSink } from '../audit/console-audit.ts';
import { journalUnavailable } from '../audit/audit-plugin.ts';
import { errorEnvelope } from '../http/envelope.ts';
import { csrfMatches, DEFAULT_SESSION_POLICY, SessionStore, type SessionPolicy } from '../operators/sessions.ts';
import { DEFAULT_LOCKOUT, type LockoutPolicy } from '../operators/lockout.ts';
import { tokenOperatorRole } from '../operators/operators.service.ts';
import { OperatorTokenStore } from '../operators/operator-tokens.ts';
import { enforceRole } from './role-guard.ts';
import { authenticateOperatorToken } from './operator-token-auth.ts';
import type { AdminDeps, AdminPluginOptions } from './deps.ts';
import authRoutes from './routes/auth.ts';
import tenantRoutes from './routes/tenants.ts';
import keyRoutes from './routes/keys.ts';
import auditRoutes from './routes/audit.ts';
import faultRoutes from './routes/faults.ts';
import storageFaultRoutes from './routes/storage-faults.ts';
import clockRoutes from './routes/clock.ts';
import { ApplianceClock } from '../clock.ts';
import operatorTokenRoutes from './routes/operator-tokens.ts';
import cloneRoutes from './routes/clones.ts';
import operatorRoutes from './routes/operators.ts';
import automationRoutes from './routes/automation.ts';
import idempotencyRoutes from './routes/idempotency.ts';
import playgroundRoutes from './routes/playground.ts';
import journalPruneRoutes from './routes/journal-prune.ts';
import journalRoutes from './routes/journal.ts';
import snapshotRoutes from './routes/snapshots.ts';
import statsRoutes from './routes/stats.ts';
import contractRoutes from './routes/contract.ts';
import { StorageFaults } from '../storage/storage-faults.ts';
import './context.ts';

export type { AdminPluginOptions } from './deps.ts';

export const SESSION_COOKIE = 'ce_console_session';
export const CSRF_HEADER = 'x-csrf-token';
export const ADMIN_PREFIX = '/admin/api';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** `METHOD /admin/api/...` of every console route registered in this process (the access-control test walks it). */
export const registeredAdminRoutes = new Set<string>();

/** Lockout and session lengths from the environment (ADMIN_* variables; docs/configuration.md). */
export function adminPoliciesFromEnv(env: NodeJS.ProcessEnv = process.env): {
  lockout: LockoutPolicy;
  session: SessionPolicy;
} {
  const num = (name: string, fallback: number, min: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be an integer >= ${min}`);
    return value;
  };
  return {
    lockout: {
      maxAttempts: num('ADMIN_LOCKOUT_ATTEMPTS', DEFAULT_LOCKOUT.maxAttempts, 1),
      lockMs: num('ADMIN_LOCKOUT_MINUTES', DEFAULT_LOCKOUT.lockMs / 60_000, 1) * 60_000,
    },
    session: {
      idleMs: num('ADMIN_SESSION_IDLE_MINUTES', DEFAULT_SESSION_POLICY.idleMs / 60_000, 1) * 60_000,
      absoluteMs: DEFAULT_SESSION_POLICY.absoluteMs,
    },
  };
}

/** What the route modules are handed: the options with their defaults, the session store and the cookie's setters. */
function adminDeps(options: AdminPluginOptions, now: () => number): AdminDeps {
  const policies = adminPoliciesFromEnv();
  const session = options.session ?? policies.session;
  const cookieOptions = (request: FastifyRequest) => ({
    path: ADMIN_PREFIX,
    httpOnly: true,
    sameSite: 'strict' as const,
    secure: request.protocol === 'https',
  });
  return {
    db: options.db,
    keys: options.keys,
    tenants: options.tenants,
    backend: options.backend,
    idempotency: options.idempotency,
    storageFaults: options.storageFaults ?? new StorageFaults(),
    auditStorage: options.auditStorage,
    journalPrune: options.journalPrune,
    clock: options.clock ?? new ApplianceClock({ dataDir: null, enabled: false }),
    contract: options.contract ?? { proxy: null, flush: async () => {} },
    lockout: options.lockout ?? policies.lockout,
    session,
    sessions: new SessionStore(options.db, session, now),
    now,
    setSessionCookie: (request, reply, token) =>
      void reply.setCookie(SESSION_COOKIE, token, {
        ...cookieOptions(request),
        maxAge: Math.floor(session.absoluteMs / 1000),
      }),
    clearSessionCookie: (request, reply) => void reply.clearCookie(SESSION_COOKIE, cookieOptions(request)),
  };
}

/**
 * Who calls: nobody (login), an operator token (automation routes), or a live session with its CSRF token on
 * every state-changing call; then the route's role against the caller's.
 */
function authenticateConsoleCall(deps: AdminDeps, operatorTokens: OperatorTokenStore) {
  return async (request: FastifyRequest): Promise<void> => {
    if (request.routeOptions.config?.adminPublic) return;
    // Automation routes: an operator API token instead of the session; no cookie is involved, so no CSRF either.
    if (request.routeOptions.config?.operatorToken) {
      await authenticateOperatorToken(request, operatorTokens);
      // A token acts as its issuing operator: that operator's role and state now, not when it was issued.
      return enforceRole(request, await tokenOperatorRole(deps.db, request.adminAuditOperatorId));
    }
    const token = request.cookies[SESSION_COOKIE];
    const active = await deps.sessions.resolve(token);
    if (!active || !token) throw new ApiError('ADMIN_UNAUTHENTICATED', 'Sessao ausente ou expirada. Entre novamente.');
    request.adminSession = { ...active, token };
    if (!SAFE_METHODS.has(request.method) && !csrfMatches(token, headerValue(request.headers[CSRF_HEADER]))) {
      throw new ApiError('ADMIN_CSRF_INVALID', 'Token CSRF ausente ou invalido.');
    }
    // Roles (issue 22): a viewer reads; writes need an admin unless the route says otherwise (config.role).
    enforceRole(request, active.role);
  };
}

/**
 * The console action's journal entry, committed before the answer leaves, like the API's entries; an action
 * whose entry cannot be committed is answered 503, never served unrecorded (fail closed).
 */
function auditConsoleAction(sink: ConsoleAuditSink) {
  return async (request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> => {
    const action = request.routeOptions.config?.consoleAction;
    if (!action) return payload;
    try {
      await sink(consoleAuditEntryFromRequest(request, reply, action));
    } catch (error) {
      request.log.error({ err: error }, 'console audit write failed: action answered 503');
      const refusal = journalUnavailable();
      request.errorCode = refusal.code;
      reply.removeHeader('set-cookie');
      reply.removeHeader('content-length');
      for (const [name, value] of Object.entries(refusal.headers)) reply.header(name, value);
      reply.code(refusal.status).type('application/json; charset=utf-8');
      return JSON.stringify(errorEnvelope(request, reply, refusal));
    }
    return payload;
  };
}

/**
 * The console API under /admin/api: operator session (HttpOnly, SameSite=Strict cookie), CSRF on every
 * state-changing call, and an audit entry for every console action. Register with `{ prefix: ADMIN_PREFIX }`.
 */
export default async function adminPlugin(app: FastifyInstance, options: AdminPluginOptions): Promise<void> {
  const now = options.now ?? Date.now;
  const deps = adminDeps(options, now);
  const operatorTokens = new OperatorTokenStore(options.db, now);

  await app.register(cookie);

  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) registeredAdminRoutes.add(`${method} ${route.url}`);
  });

  app.decorateRequest('adminSession', null);
  app.decorateRequest('adminAudit', null);
  app.decorateRequest('adminAuditOperatorId', null);

  app.addHook('onRequest', authenticateConsoleCall(deps, operatorTokens));
  app.addHook('onSend', auditConsoleAction(options.auditSink));

  // One module per console screen (and the automation routes), in this order.
  for (const routes of [
    authRoutes,
    tenantRoutes,
    keyRoutes,
    auditRoutes,
    faultRoutes,
    storageFaultRoutes,
    clockRoutes,
    operatorTokenRoutes,
    automationRoutes,
    cloneRoutes,
    idempotencyRoutes,
    playgroundRoutes,
    operatorRoutes,
    journalPruneRoutes,
    journalRoutes,
    snapshotRoutes,
    statsRoutes,
    contractRoutes,
  ])
    await app.register(routes, deps);
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
