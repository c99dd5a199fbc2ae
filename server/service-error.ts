/**
 * What a gateway service (keys, tenants) refuses: the operator's message (English) and a code saying which
 * refusal it is. The console API (admin/http.ts) and the CLI read the code, never the message.
 */
export type ServiceErrorCode =
  /** No clinic with that slug. */
  | 'tenant_not_found'
  /** A clinic with that slug is registered already. */
  | 'tenant_exists'
  /** No API key with that id. */
  | 'key_not_found'
  /** The key is revoked: it cannot be rotated or changed. */
  | 'key_revoked'
  /** The input breaks a rule of the service (slug, name, scopes, doctor id, key format). */
  | 'invalid_input';

export class ServiceError extends Error {
  constructor(
    readonly code: ServiceErrorCode,
    message: string,
    /** The input field at fault, when one is (the console API names it in `details.field`). */
    readonly field?: string,
  ) {
    super(message);
  }
}
