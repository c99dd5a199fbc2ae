import { z } from 'zod';

/**
 * A clinic's slug: 1 to 40 lowercase letters, digits or hyphens, no hyphen at either end. The gateway
 * creates clinics with it, backend-sim names and opens their databases with it: one rule for both.
 */
export const TENANT_SLUG_MAX_LENGTH = 40;
export const TENANT_SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,38}[a-z0-9])?$/;

/** The slug rule as a field, with the message the console shows under it. */
export const tenantSlug = z
  .string()
  .trim()
  .regex(TENANT_SLUG_PATTERN, 'Use 1-40 letras minusculas, digitos ou hifens.');

/**
 * A slug named by a caller (URL parameter, filter, fault target): only bounded here; whether it names a
 * clinic is the lookup's answer (404), not a format error.
 */
export const TENANT_REFERENCE_MAX_LENGTH = 63;
export const tenantReference = z.string().min(1).max(TENANT_REFERENCE_MAX_LENGTH);

/** backend-sim's route of a clinic's resource: `/tenants/{slug}` and the path below it (`/pacientes`, `/settings`). */
export const tenantPath = (slug: string, below = ''): string => `/tenants/${encodeURIComponent(slug)}${below}`;
