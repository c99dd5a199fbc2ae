import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../errors.ts';
import type { AdminDeps } from '../admin-plugin.ts';
import { parseInput } from '../http.ts';
import { attemptLogin } from '../operators.ts';
import { loginSchema } from '../schemas.ts';
import { csrfTokenFor } from '../sessions.ts';

export default async function authRoutes(app: FastifyInstance, deps: AdminDeps): Promise<void> {
  app.post('/auth/login', { config: { adminPublic: true, consoleAction: 'auth.login' } }, async (request, reply) => {
    const input = parseInput(loginSchema, request.body);
    request.adminAudit = { detail: { username: input.username } };
    const outcome = await attemptLogin(
      deps.db,
      { username: input.username, password: input.password, clientIp: request.ip },
      deps.lockout,
      deps.now,
    );
    if (!outcome.ok) {
      request.adminAuditOperatorId = outcome.operatorId;
      // Neither answer depends on whether the username exists: same status, body and headers.
      if (outcome.reason === 'locked') {
        throw new ApiError(
          'ADMIN_LOCKED',
          `Muitas tentativas invalidas deste endereco (${deps.lockout.maxAttempts}). Tente novamente mais tarde.`,
          { retry_after_segundos: outcome.retryAfterSeconds },
          { headers: { 'retry-after': String(outcome.retryAfterSeconds) } },
        );
      }
      throw new ApiError('ADMIN_UNAUTHENTICATED', 'Usuario ou senha invalidos.');
    }
    request.adminAuditOperatorId = outcome.operator.id;
    const created = await deps.sessions.create(outcome.operator.id, {
      clientIp: request.ip,
      userAgent: String(request.headers['user-agent'] ?? ''),
    });
    deps.setSessionCookie(request, reply, created.token);
    return {
      operator: { id: outcome.operator.id, username: outcome.operator.username },
      csrf_token: csrfTokenFor(created.token),
      expires_at: created.expiresAt,
    };
  });

  app.post('/auth/logout', { config: { consoleAction: 'auth.logout' } }, async (request, reply) => {
    await deps.sessions.destroy(request.adminSession!.token);
    deps.clearSessionCookie(request, reply);
    return { logged_out: true };
  });

  app.get('/auth/session', async (request) => {
    const s = request.adminSession!;
    return {
      operator: { id: s.operatorId, username: s.username },
      csrf_token: csrfTokenFor(s.token),
      expires_at: s.expiresAt,
    };
  });
}
