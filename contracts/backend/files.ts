import { z } from 'zod';

/**
 * gateway → backend-sim: a file sent inline, as the public API received it (the gateway has already
 * checked its name, type and size; backend-sim decodes it and stores it in S3).
 */
export const inlineFileInput = z.object({
  nome: z.string().min(1).max(255),
  base64: z.string(),
  descricao: z.string().max(255).nullable().optional(),
});
export type InlineFileInput = z.infer<typeof inlineFileInput>;

/** A calendar day, `YYYY-MM-DD`. */
export const dayDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);
