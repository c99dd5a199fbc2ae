import { z } from 'zod';
import { IDEMPOTENCY_KEY_PATTERN } from '../idempotency-key.ts';
import { auditItem } from './audit.ts';
import { keyView } from './keys.ts';

/** `GET /tenants/:slug/idempotency?idem_key=`: a clinic's entries of one Idempotency-Key value (the header's own syntax: anything else was never stored). */
export const idempotencySearchQuery = z.object({
  idem_key: z
    .string()
    .trim()
    .optional()
    .transform((v) => (v ? v : undefined))
    .pipe(
      z.string().regex(IDEMPOTENCY_KEY_PATTERN, 'Idempotency-Key deve ter 1 a 64 caracteres [A-Za-z0-9_-].').optional(),
    ),
});

/**
 * An entry's state as an operator reads it; `stored_503` is a lost backend's 503, replayed for 24 h as the spec
 * requires; `abandoned`: left in flight by a crash, its lease over; `orphaned`: acknowledged (`status`), but the
 * start-time check found that backend-sim no longer holds the write, so it replays nothing and its retry executes.
 */
export const IDEMPOTENCY_ENTRY_STATES = ['in_flight', 'abandoned', 'completed', 'stored_503', 'orphaned'] as const;
export type IdempotencyEntryState = (typeof IDEMPOTENCY_ENTRY_STATES)[number];

export const idempotencyEntryView = z.object({
  /** Opaque handle of (method, path, Idempotency-Key): the DELETE route's `:entry`. */
  entry: z.string(),
  idem_key: z.string(),
  method: z.string(),
  path: z.string(),
  state: z.enum(IDEMPOTENCY_ENTRY_STATES),
  status: z.number().int().nullable(),
  /** HMAC-SHA256 of the canonical body's hash under a subkey of the master key: safe to show. */
  fingerprint: z.string(),
  created_at: z.string(),
  expires_at: z.string(),
  /** Until when an in-flight entry blocks its key. */
  lease_until: z.string().nullable(),
  request_id: z.string().nullable(),
  /** The audit row of request_id, when it is still in the log. */
  audit_id: z.number().int().nullable(),
});
export type IdempotencyEntryView = z.infer<typeof idempotencyEntryView>;

/** An API key as the inspector names it: the fields of the console's key list that tell keys apart. */
export const keyRef = keyView.pick({ id: true, label: true, api_key_masked: true, status: true });
export type KeyRef = z.infer<typeof keyRef>;

/** `GET /keys/:id/idempotency`: a key's live entries (metadata only: the sealed responses are never opened). */
export const keyIdempotency = z.object({
  key: keyRef.extend({ tenant_slug: z.string().nullable() }),
  items: z.array(idempotencyEntryView),
  truncated: z.boolean(),
});
export type KeyIdempotency = z.infer<typeof keyIdempotency>;

/** One side of a conflict: the operation and the body fingerprint (an HMAC, safe to show). */
export const conflictSide = idempotencyEntryView
  .pick({ method: true, path: true, request_id: true, audit_id: true })
  .extend({ fingerprint: z.string().nullable() });
export type ConflictSide = z.infer<typeof conflictSide>;

/**
 * A request refused `422 IDEMPOTENCY_CONFLICT`, from the journal: the entry it met (`first`) and what it sent.
 * Entries journaled before issue 22 carry no fingerprints: `first` then comes from the live entry if it is
 * still there, and the sent fingerprint is null.
 */
export const idempotencyConflictView = auditItem.pick({ request_id: true, ts: true }).extend({
  /** The refused request's journal entry (its `id`; `request_id` and `ts` as the entry has them). */
  audit_id: z.number().int(),
  idem_key: z.string().nullable(),
  /** `body`: same operation, another body; `operation`: the key was bound to another operation. */
  reason: z.enum(['body', 'operation']).nullable(),
  key: keyRef.nullable(),
  first: conflictSide.nullable(),
  sent: conflictSide,
});
export type IdempotencyConflictView = z.infer<typeof idempotencyConflictView>;

/** A live entry found by a clinic-wide search: which of the clinic's keys it belongs to. */
export const clinicIdempotencyEntryView = idempotencyEntryView.extend({ key: keyRef });
export type ClinicIdempotencyEntryView = z.infer<typeof clinicIdempotencyEntryView>;

/** `GET /tenants/:slug/idempotency`: the clinic's entries of one value (when given) and its 422 conflicts. */
export const clinicIdempotency = z.object({
  tenant: z.object({ slug: z.string(), nome: z.string() }),
  idem_key: z.string().nullable(),
  entries: z.array(clinicIdempotencyEntryView),
  conflicts: z.array(idempotencyConflictView),
  conflicts_truncated: z.boolean(),
});
export type ClinicIdempotency = z.infer<typeof clinicIdempotency>;

/** `DELETE /keys/:id/idempotency/:entry`: what was purged (an in-flight entry is refused). */
export const idempotencyPurged = z.object({
  purged: z.literal(true),
  idem_key: z.string(),
  method: z.string(),
  path: z.string(),
  state: z.enum(IDEMPOTENCY_ENTRY_STATES),
});
