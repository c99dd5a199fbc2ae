import { z } from 'zod';
import { resettable } from '../schemas/fields.ts';
import { medicoPatchBody, medicosListQuery } from '../schemas/medicos.ts';
import { backendPage, forwarded, forwardedBirthDate, forwardedCpf, queryFlag } from './forwarded.ts';

/** gateway → backend-sim `/tenants/{slug}/medicos`: the public doctor schemas as backend-sim reads them (forwarded.ts). */

export const medicoListForwarded = forwarded(medicosListQuery, {
  papel: medicosListQuery.shape.papel.transform((papeis) => papeis ?? []),
  // From the first letter: the console's doctor picker searches with any prefix (contracts/admin/tenants.ts).
  q: z.string().optional(),
  // Absent (the console's picker, the CLI): the active doctors, the public default.
  ativo: queryFlag.optional(),
  ...backendPage,
});
export type MedicoListFilter = z.output<typeof medicoListForwarded>;

/** A text create requires: a missing, null or blank one is backend-sim's 422 VALIDATION_ERROR. */
const requiredText = z.string().nullable().optional();

/**
 * Create and patch, read alike (the patch's fields, all optional): create's required `nome`, `usuario` and `senha`
 * are checked by backend-sim's service (422), as the clinic's backend does.
 */
export const medicoWriteForwarded = forwarded(medicoPatchBody, {
  nome: requiredText,
  usuario: requiredText,
  senha: requiredText,
  data_nascimento: resettable(forwardedBirthDate),
  cpf: forwardedCpf,
});
export type MedicoWrite = z.output<typeof medicoWriteForwarded>;
