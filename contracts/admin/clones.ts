import { z } from 'zod';
import { tenantSlug } from '../backend/tenants.ts';
import { issuedKey } from './keys.ts';
import { backendClone } from '../backend/clones.ts';
import { SNAPSHOT_NAME_PATTERN } from '../backend/snapshots.ts';

/**
 * Ephemeral clinics (issue 30): a clinic made as a copy of a template (a clinic's first-start state, or one of
 * its named snapshots) with its own all-scopes key, removed by the appliance when its time to live ends.
 */

/** Time to live when none is asked for, and the most one may ask for (docs/testing.md § A clinic of one's own). */
export const CLONE_TTL_DEFAULT = '30m';
export const CLONE_TTL_MAX_MS = 24 * 3_600_000;
export const CLONE_TTL_MIN_MS = 10_000;
/** How many ephemeral clinics may exist at once unless EPHEMERAL_CLINICS_MAX says otherwise. */
export const EPHEMERAL_CLINICS_DEFAULT_MAX = 20;

const TTL_PATTERN = /^([1-9][0-9]{0,5})(s|m|h)$/;
const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000 } as const;

/** `90s`, `30m`, `2h` in milliseconds; null for anything else. */
export function parseTtl(text: string): number | null {
  const match = TTL_PATTERN.exec(text.trim());
  if (!match) return null;
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}

const TTL_MESSAGE = 'Validade: um numero seguido de s, m ou h (90s, 30m, 2h), de 10s a 24h.';

export const cloneTtl = z
  .string({ error: TTL_MESSAGE })
  .max(10, TTL_MESSAGE)
  .refine((text) => {
    const ms = parseTtl(text);
    return ms !== null && ms >= CLONE_TTL_MIN_MS && ms <= CLONE_TTL_MAX_MS;
  }, TTL_MESSAGE);

/** `POST /tenants/:slug/clone` (console and automation): every field optional. */
export const cloneTenantSchema = z
  .object({
    /** A named snapshot of the template; its first-start state when absent. */
    snapshot: z.string().regex(SNAPSHOT_NAME_PATTERN, 'Nome de snapshot invalido.').optional(),
    /** The clone's slug; `<template>-<6 hex>` when absent. */
    slug: tenantSlug.optional(),
    ttl: cloneTtl.default(CLONE_TTL_DEFAULT),
    /** Bind the clone's key to this doctor of the template (0 or absent: not bound). */
    medico_id: z.number().int().min(0).max(2_147_483_647).default(0),
  })
  .strict();
export type CloneTenantInput = z.input<typeof cloneTenantSchema>;

/**
 * The answer of a clone: what backend-sim copied (its clone answer's fields, passed on) and the clone's key (named
 * as an issued key's answer names it); the key's secret is in it and nowhere else, ever. `duration_ms` is the whole
 * clone's, measured by the gateway.
 */
export const tenantCloned = backendClone
  .pick({ slug: true, nome: true, template: true, snapshot: true, files_copied: true, duration_ms: true })
  .extend(issuedKey.pick({ chave_id: true, api_key: true, api_secret: true }).shape)
  .extend({ expires_at: z.string(), medico_id: z.number().int() });
export type TenantCloned = z.infer<typeof tenantCloned>;

/** `DELETE /tenants/:slug`: what went; its journal entries stay under its slug for the retention window. */
export const tenantDropped = z.object({
  slug: z.string(),
  dropped: z.literal(true),
  keys_removed: z.number().int(),
  idempotency_keys_removed: z.number().int(),
  files_removed: z.number().int(),
  /** Whether it was an ephemeral clinic (a permanent one needs `confirm`). */
  ephemeral: z.boolean(),
  journal_kept: z.literal(true),
});
export type TenantDropped = z.infer<typeof tenantDropped>;

/** Body of a drop: a permanent clinic is dropped only with `confirm` equal to its slug (typed in the console). */
export const dropTenantSchema = z.object({ confirm: z.string().max(63).optional() }).strict();

/** `GET /ephemeral-clinics-policy`: whether clones are allowed here, and the limits. */
export const clonePolicyView = z.object({
  allowed: z.boolean(),
  app_env: z.enum(['development', 'production']),
  opt_in: z.boolean(),
  opt_in_variable: z.literal('ALLOW_EPHEMERAL_CLINICS'),
  max: z.number().int(),
  ttl_default: z.string(),
  ttl_max: z.string(),
});
export type ClonePolicyView = z.infer<typeof clonePolicyView>;
