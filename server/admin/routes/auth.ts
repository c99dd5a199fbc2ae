import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../errors.ts';
import type { AdminDeps } from '../deps.ts';
import { parseInput } from '../http.ts';
import { attemptLogin } from '../../operators/lockout.ts';
import { changeOwnPassword } from '../../operators/operators.service.ts';
import {
  changePasswordSchema,
  loginSchema,
  type loggedOut,
  type passwordChanged,
  type SessionView,
} from '../../../contracts/admin/auth.ts';
import type { z } from 'zod';
import { REDACTED } from '../../http/redact.ts';
import { csrfTokenFor } from '../../operators/sessions.ts';

export default async function authRoutes(app: FastifyInstance, deps: AdminDeps): Promise<void> {
  app.post(
    '/auth/login',
    { config: { adminPublic: true, consoleAction: 'auth.login' } },
    async (request, reply): Promise<SessionView> => {
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
        operator: { id: outcome.operator.id, username: outcome.operator.username, role: outcome.operator.role },
        csrf_token: csrfTokenFor(created.token),
        expires_at: created.expiresAt,
      };
    },
  );

  // Every operator may sign out and change their own password (role: viewer): these are its only writes.
  app.post(
    '/auth/logout',
    { config: { consoleAction: 'auth.logout', role: 'viewer' } },
    async (request, reply): Promise<z.infer<typeof loggedOut>> => {
      await deps.sessions.destroy(request.adminSession!.token);
      deps.clearSessionCookie(request, reply);
      return { logged_out: true as const };
    },
  );

  app.get('/auth/session', async (request): Promise<SessionView> => {
    const s = request.adminSession!;
    return {
      operator: { id: s.operatorId, username: s.username, role: s.role },
      csrf_token: csrfTokenFor(s.token),
      expires_at: s.expiresAt,
    };
  });

  // Your own password: the current one is required, checked under the login lockout. The other sessions
  // of the operator end; this one stays.
  app.post(
    '/auth/password',
    { config: { consoleAction: 'operator.password.change', role: 'viewer' } },
    async (request): Promise<z.infer<typeof passwordChanged>> => {
      const body = request.body;
      // The journal keeps request bodies: neither password may reach it, even in a refused attempt.
      if (body && typeof body === 'object')
        request.body = Object.fromEntries(Object.keys(body).map((name) => [name, REDACTED]));
      const input = parseInput(changePasswordSchema, body);
      const s = request.adminSession!;
      request.adminAudit = { detail: { operator: s.username } };
      const { sessionsEnded } = await changeOwnPassword(
        deps.db,
        {
          operatorId: s.operatorId,
          currentPassword: input.current_password,
          newPassword: input.new_password,
          clientIp: request.ip,
          keepTokenHash: s.tokenHash,
        },
        deps.lockout,
        deps.now,
      );
      request.adminAudit = { detail: { operator: s.username, other_sessions_ended: sessionsEnded } };
      return { changed: true as const, other_sessions_ended: sessionsEnded };
    },
  );
}
