import { z } from 'zod';

/** The `:id` of a path. The forwarded queries and bodies are read with contracts/backend/ (forwarded.ts). */
export const idParam = z.object({ id: z.coerce.number().int().positive() });
