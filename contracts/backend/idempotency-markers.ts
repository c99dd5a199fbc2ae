import { z } from 'zod';

/**
 * gateway → backend-sim: which of these write tokens does the tenant database hold a marker for
 * (backend-sim/idempotency.ts). The gateway asks it at start for its recent completed writes
 * (server/integrity/idempotency-consistency.ts): a write it acknowledged whose marker is gone was lost
 * by the backend (a damaged WAL), and its key must not replay a success for a record that no longer exists.
 */
export const idempotencyMarkersPath = (tenantSlug: string): string =>
  `/tenants/${encodeURIComponent(tenantSlug)}/idempotency-markers/lookup`;

/** Tokens per call: 64 hex characters each, so a call stays far below the backend's body limit. */
export const MARKER_LOOKUP_MAX_TOKENS = 1000;

const writeToken = z.string().regex(/^[0-9a-f]{64}$/);

export const markerLookupRequest = z.object({ tokens: z.array(writeToken).min(1).max(MARKER_LOOKUP_MAX_TOKENS) });
export type MarkerLookupRequest = z.infer<typeof markerLookupRequest>;

/** `known`: the tokens of the request that have a marker, whatever its age. */
export const markerLookupResponse = z.object({ known: z.array(writeToken) });
export type MarkerLookupResponse = z.infer<typeof markerLookupResponse>;
