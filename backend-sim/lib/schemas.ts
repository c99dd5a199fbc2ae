import { z } from 'zod';
import { dayDate as date } from '../../contracts/backend/files.ts';

export { date };
export const idParam = z.object({ id: z.coerce.number().int().positive() });
/** A text field a write may leave out, send as null or send. */
export const optionalText = z.string().nullable().optional();

/** `limit` and `offset` of a paginated list: 50 rows unless asked, at most 1000. */
export const pageFields = {
  limit: z.coerce.number().int().min(1).max(1000).default(50),
  offset: z.coerce.number().int().min(0).default(0),
};
/** Lists the spec does not paginate answer everything unless the gateway sends limit/offset. */
export const wholeListFields = {
  limit: z.coerce.number().int().min(1).max(1000).default(1000),
  offset: z.coerce.number().int().min(0).default(0),
};
export const pageSchema = z.object(pageFields);
export type PageInput = z.infer<typeof pageSchema>;
