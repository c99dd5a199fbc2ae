import type { Scope } from '../auth/scopes.ts';

/** Who is calling, set by the auth plugin on every authenticated /v1 request. */
export interface AuthContext {
  chaveId: number;
  apiKey: string;
  tenantId: number;
  tenantSlug: string;
  sandbox: boolean;
  medicoId: number;
  scopes: Scope[];
}

declare module 'fastify' {
  interface FastifyRequest {
    startedAt: number;
    /** Exact bytes received, covered by the signature; empty when the request had no body. */
    rawBody: Buffer;
    /** Set when a body arrived with a content type other than application/json. */
    unsupportedContentType: string | null;
    auth: AuthContext | null;
    /** Error code of the response, for the audit log. */
    errorCode: string | null;
    /** Metadata a route wants in its audit entry (file redirects: id, tipo, expiry); never paths or URLs. */
    auditDetail: Record<string, unknown> | null;
    /** The write this request is executing under its Idempotency-Key, when it won the reservation. */
    idempotentOperation: import('../idempotency/idempotency.store.ts').OperationKey | null;
  }
  interface FastifyReply {
    /** Extra `meta` fields merged into the envelope (pagination, replay flag, …). */
    extraMeta: Record<string, unknown> | null;
  }
  interface FastifyContextConfig {
    /** Scope the route requires; `null` means any valid key (ping, config). */
    scope?: import('../auth/scopes.ts').Scope | null;
    /** Public routes skip HMAC authentication (console assets, admin API). */
    public?: boolean;
    /** Largest accepted body in bytes, answered with 413 after authentication. */
    maxBodyBytes?: number;
    /** `private, max-age=300` on config and catalogs. */
    cacheControl?: string;
    /** Write routes opt into the idempotency engine (Idempotency-Key required, replay, conflicts). */
    idempotent?: boolean;
  }
}
