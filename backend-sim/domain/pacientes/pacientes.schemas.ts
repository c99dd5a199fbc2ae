import { z } from 'zod';
import { date, optionalText as text, pageFields } from '../../lib/schemas.ts';
import { enderecoFields } from '../endereco.ts';

const enderecoInput = z.object(enderecoFields).nullable();

const convenioInput = z
  .object({
    id: z.number().int().nullable().optional(),
    plano_id: z.number().int().nullable().optional(),
    numero_carteirinha: text,
  })
  .nullable();
export type ConvenioInput = z.infer<typeof convenioInput>;

/** Fields shared by create and patch; unknown (silently discarded) fields are stripped by zod. */
export const pacienteFields = {
  nome: z.string().nullable(),
  data_nascimento: date.nullable().or(z.literal('')),
  cpf: text,
  celular: text,
  saudacao: text,
  nome_registro: text,
  rg: text,
  telefone: text,
  sexo: z.enum(['MAS', 'FEM', 'OUT']).nullable().or(z.literal('')).optional(),
  estado_civil_id: z.number().int().nullable().optional(),
  email: text,
  numero_prontuario: text,
  endereco: enderecoInput.optional(),
  convenio: convenioInput.optional(),
  ativo: z.boolean().nullable().optional(),
  usuario: text,
  senha: text,
  senha_temporaria: z.boolean().nullable().optional(),
};

export const pacienteCreateSchema = z.object({
  ...pacienteFields,
  nome: z.string().min(1),
  data_nascimento: date,
});
export const pacientePatchSchema = z.object({
  ...pacienteFields,
  nome: pacienteFields.nome.optional(),
  data_nascimento: pacienteFields.data_nascimento.optional(),
});
export type PacienteCreate = z.infer<typeof pacienteCreateSchema>;
export type PacientePatch = z.infer<typeof pacientePatchSchema>;

export const pacienteListSchema = z.object({
  cpf: z.string().optional(),
  nome: z.string().optional(),
  periodo_cadastro_inicio: date.optional(),
  periodo_cadastro_fim: date.optional(),
  ativo: z.enum(['0', '1']).optional(),
  ...pageFields,
});
export type PacienteListFilter = z.infer<typeof pacienteListSchema>;

export const unificarSchema = z.object({
  paciente_id_principal: z.coerce.number().int().positive(),
  paciente_id_duplicado: z.coerce.number().int().positive(),
});
