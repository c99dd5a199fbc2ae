import { z } from 'zod';
import { ALL_SCOPES, SCOPE_PRESETS } from '../scopes.ts';

export { ALL_SCOPES, SCOPE_PRESETS };

export const scopeSchema = z.enum(ALL_SCOPES);

const medicoId = z.number({ error: 'Medico invalido.' }).int().min(0, 'Medico invalido.');
const label = z.string().trim().max(100, 'Maximo de 100 caracteres.');

/** A key's expiry may be at most this far ahead (issue 31 § Keys that expire). */
export const KEY_EXPIRY_MAX_DAYS = 1825;
/** The console's "expiring" filter and the alerts: keys that expire within this many days. */
export const KEY_EXPIRING_SOON_DAYS = 7;

const EXPIRES_AT_MESSAGE = 'Data de expiracao invalida (ISO 8601 com fuso, ex.: 2027-01-31T18:00:00Z).';
const EXPIRES_IN_DAYS_MESSAGE = `Validade em dias: um inteiro de 1 a ${KEY_EXPIRY_MAX_DAYS}.`;
/** An ISO 8601 date-time with its offset; whether it lies in the future is checked against the appliance clock. */
export const expiresAtField = z.iso.datetime({ offset: true, local: false, message: EXPIRES_AT_MESSAGE });
export const expiresInDaysField = z
  .number({ error: EXPIRES_IN_DAYS_MESSAGE })
  .int(EXPIRES_IN_DAYS_MESSAGE)
  .min(1, EXPIRES_IN_DAYS_MESSAGE)
  .max(KEY_EXPIRY_MAX_DAYS, EXPIRES_IN_DAYS_MESSAGE);
export const EXPIRY_BOTH_MESSAGE = 'Informe expires_at ou expires_in_days, nao os dois.';

/** `POST /tenants/:slug/keys`. */
export const issueKeySchema = z
  .object({
    label: label.default(''),
    scopes: z.array(scopeSchema).min(1, 'Escolha ao menos um escopo.'),
    /** 0 = no doctor bound (the key sees the whole clinic). */
    medico_id: medicoId.default(0),
    /** When the key stops working (appliance clock); absent or null: never. */
    expires_at: expiresAtField.nullable().optional(),
    /** Or: this many days from now (appliance clock). */
    expires_in_days: expiresInDaysField.optional(),
  })
  .superRefine((v, ctx) => {
    if (v.expires_at != null && v.expires_in_days !== undefined)
      ctx.addIssue({ code: 'custom', path: ['expires_in_days'], message: EXPIRY_BOTH_MESSAGE });
  });
export type IssueKeyInput = z.infer<typeof issueKeySchema>;

/** `PATCH /keys/:id`. */
export const updateKeySchema = z
  .object({
    label: label.optional(),
    scopes: z.array(scopeSchema).min(1, 'Escolha ao menos um escopo.').optional(),
    medico_id: medicoId.optional(),
    /** A new expiry, or null: never expires. */
    expires_at: expiresAtField.nullable().optional(),
    /** Or: this many days from now. */
    expires_in_days: expiresInDaysField.optional(),
  })
  .strict()
  .superRefine((v, ctx) => {
    if (v.expires_at != null && v.expires_in_days !== undefined)
      ctx.addIssue({ code: 'custom', path: ['expires_in_days'], message: EXPIRY_BOTH_MESSAGE });
  })
  .refine(
    (v) =>
      v.label !== undefined ||
      v.scopes !== undefined ||
      v.medico_id !== undefined ||
      v.expires_at !== undefined ||
      v.expires_in_days !== undefined,
    { message: 'Nada para alterar.' },
  );
export type UpdateKeyInput = z.infer<typeof updateKeySchema>;

/** An API key as the console lists it: the key masked, the secret never. */
export const keyView = z.object({
  id: z.number().int(),
  tenant_id: z.number().int(),
  /** `ce_live_1234…cdef`: enough to recognise a key, not enough to use it. */
  api_key_masked: z.string(),
  label: z.string(),
  escopos: z.array(scopeSchema),
  /** The doctor the key is bound to; 0: none. */
  medico_id: z.number().int(),
  status: z.string(),
  format: z.string(),
  created_at: z.string(),
  rotated_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
  last_used_at: z.string().nullable(),
  /** When the key stops working (ISO 8601 UTC, appliance clock); null: never. */
  expires_at: z.string().nullable(),
  /** Past its expiry by the appliance clock (its calls answer AUTH_KEY_REVOKED); `status` stays as it was. */
  expired: z.boolean(),
});
export type KeyView = z.infer<typeof keyView>;

/** Issue and rotate: the secret is in this answer and nowhere else, ever. */
export const issuedKey = z.object({
  chave_id: z.number().int(),
  api_key: z.string(),
  api_secret: z.string(),
  key: keyView,
});
export type IssuedKey = z.infer<typeof issuedKey>;

/** The keys list's status filter: `expired` is an active key past its expiry, `active` one that is not. */
export const KEY_STATUS_FILTERS = ['active', 'expired', 'inactive', 'revoked', 'current'] as const;
export type KeyStatusFilter = (typeof KEY_STATUS_FILTERS)[number];

/**
 * `GET /tenants/:slug/keys` query: all optional; without `limit` every matching key is answered (older callers).
 * The answer stays the array of keys; `meta.total` counts every key matching the filters, `meta.limit`/`meta.offset`
 * echo the page.
 */
export const keyListQuery = z.object({
  /** Label, key prefix (`ce_live_1a2b…`), key id (`#7`) or doctor (id or name), case-insensitive. */
  q: z.string().trim().max(100, 'Maximo de 100 caracteres.').optional(),
  scope: scopeSchema.optional(),
  /** `current`: every key not revoked. */
  status: z.enum(KEY_STATUS_FILTERS).optional(),
  /** Active keys expiring within this many days (not yet expired). */
  expiring: z.coerce.number().int().min(1).max(KEY_EXPIRY_MAX_DAYS).optional(),
  limit: z.coerce.number().int().min(1).max(500).optional(),
  offset: z.coerce.number().int().min(0).default(0),
});
export type KeyListQuery = z.input<typeof keyListQuery>;

/** `meta` of a keys list answer. */
export const keyListMeta = z.object({
  total: z.number().int(),
  limit: z.number().int().nullable(),
  offset: z.number().int(),
});
export type KeyListMeta = z.infer<typeof keyListMeta>;
