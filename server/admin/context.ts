import type { ActiveSession } from '../operators/sessions.ts';
import type { ConsoleActionSubject } from '../audit/console-audit.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** Operator session of a console API call (null on /login and outside /admin/api). */
    adminSession: (ActiveSession & { token: string }) | null;
    /** What the console action touched, for its audit entry. */
    adminAudit: ConsoleActionSubject | null;
    /** Operator of a login attempt (there is no session yet). */
    adminAuditOperatorId: number | null;
  }
  interface FastifyContextConfig {
    /** Console API routes reachable without a session (login only). */
    adminPublic?: boolean;
    /** Audited console action name, e.g. `key.rotate`. */
    consoleAction?: string;
  }
}
