import { z } from 'zod';
import { ALL_SCOPES, SCOPE_PRESETS } from '../scopes.ts';

export { ALL_SCOPES, SCOPE_PRESETS };

export const scopeSchema = z.enum(ALL_SCOPES);

const medicoId = z.number({ error: 'Medico invalido.' }).int().min(0, 'Medico invalido.');
const label = z.string().trim().max(100, 'Maximo de 100 caracteres.');

/** `POST /tenants/:slug/keys`. */
export const issueKeySchema = z.object({
  label: label.default(''),
  scopes: z.array(scopeSchema).min(1, 'Escolha ao menos um escopo.'),
  /** 0 = no doctor bound (the key sees the whole clinic). */
  medico_id: medicoId.default(0),
});
export type IssueKeyInput = z.infer<typeof issueKeySchema>;

/** `PATCH /keys/:id`. */
export const updateKeySchema = z
  .object({
    label: label.optional(),
    scopes: z.array(scopeSchema).min(1, 'Escolha ao menos um escopo.').optional(),
    medico_id: medicoId.optional(),
  })
  .strict()
  .refine((v) => v.label !== undefined || v.scopes !== undefined || v.medico_id !== undefined, {
    message: 'Nada para alterar.',
  });
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
