import { z } from 'zod';
import { pacienteCreateBody, pacientePatchBody, pacientesListQuery, unificarBody } from '../schemas/pacientes.ts';
import { backendPage, forwarded, forwardedBirthDate, forwardedCpf, queryFlag } from './forwarded.ts';

/** gateway → backend-sim `/tenants/{slug}/pacientes`: the public patient schemas as backend-sim reads them (forwarded.ts). */

export const pacienteListForwarded = forwarded(pacientesListQuery, {
  // Any needle length: the search is backend-sim's (its tests compare every length with instr); 3 is the API's minimum.
  nome: z.string().optional(),
  ativo: queryFlag.optional(),
  ...backendPage,
});
export type PacienteListFilter = z.output<typeof pacienteListForwarded>;

export const pacienteCreateForwarded = forwarded(pacienteCreateBody.out, {
  // Any length: 5 to 100 characters is the API's rule; the clinic's backend stores any name (search tests use short ones).
  nome: z.string().min(1),
  data_nascimento: forwardedBirthDate,
  cpf: forwardedCpf,
});
export type PacienteCreate = z.output<typeof pacienteCreateForwarded>;

export const pacientePatchForwarded = forwarded(pacientePatchBody.out, {
  // A null or blank name or birth date is backend-sim's 422 BUSINESS_RULE, as the clinic's backend answers it.
  nome: z.string().nullable().optional(),
  data_nascimento: forwardedBirthDate.nullable().or(z.literal('')).optional(),
  cpf: forwardedCpf,
});
export type PacientePatch = z.output<typeof pacientePatchForwarded>;
export type ConvenioInput = PacientePatch['convenio'];

export const unificarForwarded = forwarded(unificarBody);
