import { z } from 'zod';

export const date = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);
export const idParam = z.object({ id: z.coerce.number().int().positive() });
