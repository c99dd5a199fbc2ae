/**
 * The public API's `Idempotency-Key` header: 1 to 64 of `[A-Za-z0-9_-]` (server/idempotency/idempotency-plugin.ts
 * refuses anything else with 400; the console's idempotency search takes the same syntax).
 */
export const IDEMPOTENCY_KEY_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
