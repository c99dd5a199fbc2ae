import type { Scope } from '../../contracts/scopes.ts';

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
    /** The key named by X-API-Key, resolved from the headers before the body is read; the signature is checked later. */
    presentedKey: import('../keys/keys.service.ts').ResolvedKey | null;
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
    /** Scope the route requires; `null` means any valid key (ping, config). Set from the operation definition. */
    scope?: import('../../contracts/scopes.ts').Scope | null;
    /** The CORS preflight: the one unsigned route of the /v1 subtree. */
    corsPreflight?: boolean;
    /** `private, max-age=300` on config and catalogs. */
    cacheControl?: string;
    /** Write routes opt into the idempotency engine (Idempotency-Key required, replay, conflicts). */
    idempotent?: boolean;
  }
}
