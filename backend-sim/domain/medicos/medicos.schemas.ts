import { z } from 'zod';
import { optionalText as text, pageFields } from '../../lib/schemas.ts';
import { enderecoFields } from '../endereco.ts';

export const PAPEIS = ['EXAME', 'LAUDO', 'SOLICITANTE'] as const;
export type Papel = (typeof PAPEIS)[number];

export const medicosQuery = z.object({
  // The gateway may forward a repeated `papel` (array) or a comma-separated value.
  papel: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .transform((v) =>
      v === undefined
        ? []
        : (Array.isArray(v) ? v : [v])
            .flatMap((s) => s.split(','))
            .map((s) => s.trim().toUpperCase())
            .filter(Boolean),
    )
    .pipe(z.array(z.enum(PAPEIS))),
  q: z.string().optional(),
  ativo: z.enum(['0', '1']).optional(),
  ...pageFields,
});
export type MedicoListFilter = z.infer<typeof medicosQuery>;

const { cidade_id, estado, ...enderecoAntesDaCidade } = enderecoFields;
const medicoFields = {
  nome: z.string().nullable().optional(),
  nome_registro: text,
  saudacao: text,
  saudacao_id: z.number().int().nullable().optional(),
  grupo_permissao: text,
  grupo_permissao_id: z.number().int().nullable().optional(),
  usuario: text,
  senha: text,
  cpf: text,
  rg: text,
  data_nascimento: text,
  sexo: text,
  conselho: z
    .object({ sigla: text, tipo: text, numero: z.union([z.string(), z.number()]).nullable().optional(), uf: text })
    .nullable()
    .optional(),
  especialidade: text,
  papeis: z.array(z.enum(PAPEIS)).nullable().optional(),
  telefone: text,
  celular: text,
  email: text,
  // A doctor's address may name its city instead of giving its id.
  endereco: z
    .object({ ...enderecoAntesDaCidade, cidade: text, cidade_id, estado })
    .nullable()
    .optional(),
  cor_agenda: text,
  ativo: z.boolean().nullable().optional(),
};
export const medicoWriteSchema = z.object(medicoFields);
export type MedicoWrite = z.infer<typeof medicoWriteSchema>;
