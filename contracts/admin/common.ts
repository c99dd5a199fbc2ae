import { z } from 'zod';
import { TENANT_REFERENCE_MAX_LENGTH, tenantReference } from '../backend/tenants.ts';

/**
 * The console API (`/admin/api`, console ↔ gateway): every request the console sends and every answer it
 * reads is defined in this folder, one file per screen. The gateway validates requests with these schemas
 * (server/admin/routes/*) and types its answers by them; the console validates its forms before sending and
 * parses what it gets back (console/src/features/*\/api.ts). No Node imports: the console bundle takes them.
 */

/** `/…/:id` of a console API route. */
export const idParams = z.object({ id: z.coerce.number().int().positive() });

/** `/tenants/:slug/…` of a console API route: an unknown clinic is a 404, not a format error. */
export const slugParams = z.object({ slug: tenantReference });

/** The answer of a removal by id (`DELETE /faults/:id`, `DELETE /storage-faults/:id`). */
export const removedById = z.object({ id: z.number().int(), removida: z.literal(true) });
/** The answer of clearing a list (`DELETE /faults`, `DELETE /storage-faults`). */
export const removedAll = z.object({ removidas: z.number().int() });

/** A clinic named in a body (a fault's target, a token's clinics): trimmed, then bounded like a reference. */
export const tenantField = z.string().trim().min(1).max(TENANT_REFERENCE_MAX_LENGTH);
