import { z } from 'zod';
import { PAPEIS } from '../medicos/medicos.schemas.ts';

export const pacienteQuery = z.object({ cpf: z.string().regex(/^\d{11}$/) });
export const procedimentoQuery = z.union([
  z.object({ codigo_tuss: z.string().regex(/^\d{8}$/) }),
  z.object({ abreviacao: z.string().min(1) }),
]);
export const convenioQuery = z.union([
  z.object({ codigo_ans: z.string().regex(/^\d{6}$/) }),
  z.object({ nome: z.string().min(1) }),
]);
export const medicoQuery = z.object({
  crm: z.string().regex(/^\d{1,10}$/),
  uf: z
    .string()
    .regex(/^[A-Z]{2}$/)
    .optional(),
  papel: z.enum(PAPEIS),
});
export const unidadeQuery = z.object({ nome: z.string().min(1) });

export type PacienteQuery = z.infer<typeof pacienteQuery>;
export type ProcedimentoQuery = z.infer<typeof procedimentoQuery>;
export type ConvenioQuery = z.infer<typeof convenioQuery>;
export type MedicoQuery = z.infer<typeof medicoQuery>;
export type UnidadeQuery = z.infer<typeof unidadeQuery>;
