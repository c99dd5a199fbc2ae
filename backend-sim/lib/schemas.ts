import { z } from 'zod';

/** Query-string integer (the gateway forwards normalized digits). */
export const qInt = z.coerce.number().int();
export const qBool01 = z.enum(['0', '1']).transform((v) => v === '1');
export const page = {
  limit: z.coerce.number().int().min(1).max(1000).default(50),
  offset: z.coerce.number().int().min(0).default(0),
};
export const date = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);
export const idParam = z.object({ id: z.coerce.number().int().positive() });
/** Strings where null or "" mean "reset" in merge-patch semantics. */
export const nullableText = z.string().nullable();
