import { z } from 'zod';
import { dateString, paginationQuery, queryObject, idParam, flagQuery, orderedDates, searchText } from './params.ts';
import { digitsUpTo, documented, MAX_SAFE } from './wire.ts';
import {
  birthDate,
  closedObject,
  cpfField,
  dropKeys,
  emailField,
  positiveInt,
  resettable,
  senhaField,
  sexoField,
  text,
  usuarioField,
} from './fields.ts';
import { enderecoInputWith, enderecoView, nomePessoa, nullableText } from './pessoa.ts';

/** Spec § POST /v1/pacientes: accepted and dropped before the backend ever sees them. */
export const PACIENTE_DISCARDED_FIELDS = [
  'data_alteracao_senha',
  'foto_usuario',
  'imagem',
  'observacao',
  'visualizador_exames_modo',
  'paciente',
  'perfil',
  'admin',
  'gerente',
  'exames_atendimento_perfil_id',
  'restricoes',
  'nome_responsavel',
  'cpf_responsavel',
  'matricula',
] as const;

// ---------------------------------------------------------------- query / path

export const pacientesListQuery = orderedDates(
  queryObject({
    cpf: z
      .string()
      .regex(/^\d{11}$/, 'CPF deve ter exatamente 11 digitos.')
      .optional(),
    nome: searchText(3).optional(),
    periodo_cadastro_inicio: dateString.optional(),
    periodo_cadastro_fim: dateString.optional(),
    ativo: flagQuery.optional(),
    ...paginationQuery,
  }),
  'periodo_cadastro_fim',
  'periodo_cadastro_inicio',
);

export const pacienteIdParams = z.strictObject({ id: idParam });

// ---------------------------------------------------------------- bodies

export const enderecoInput = enderecoInputWith({});

export const convenioInput = documented(
  closedObject(
    {
      id: positiveInt.nullable().optional(),
      plano_id: positiveInt.nullable().optional(),
      numero_carteirinha: text(40),
    },
    'convenio',
  ).superRefine((c, ctx) => {
    if (!c.id && (c.plano_id || c.numero_carteirinha)) {
      ctx.addIssue({
        code: 'custom',
        path: ['id'],
        message: 'Informe o convenio (id) junto de plano_id ou numero_carteirinha.',
      });
    }
  }),
  {
    json: {
      description: 'plano_id e numero_carteirinha so junto do convenio (id).',
      anyOf: [
        { required: ['id'], properties: { id: { type: 'integer' } } },
        {
          properties: { plano_id: { type: 'null' }, numero_carteirinha: { anyOf: [{ type: 'null' }, { const: '' }] } },
        },
      ],
    },
  },
);

const nome = nomePessoa('De 5 a 100 caracteres depois de remover os espacos das pontas; gravado em caixa alta.');

/** Fields common to create and patch; every one except nome/data_nascimento accepts null or "" as "no value". */
const optionalFields = {
  cpf: resettable(cpfField),
  celular: text(20),
  saudacao: text(30),
  nome_registro: text(100),
  rg: text(20),
  telefone: text(20),
  sexo: resettable(sexoField),
  estado_civil_id: positiveInt.nullable().optional(),
  email: resettable(emailField),
  numero_prontuario: text(30),
  endereco: enderecoInput.nullable().optional(),
  convenio: convenioInput.nullable().optional(),
  ativo: z.boolean('Deve ser booleano (true ou false).').nullable().optional(),
  usuario: resettable(usuarioField),
  senha: resettable(senhaField),
  senha_temporaria: z.boolean('Deve ser booleano (true ou false).').optional(),
};

/** `senha_temporaria` only next to a `senha` (a non-empty string). */
const SENHA_TEMPORARIA_JSON = {
  dependentRequired: { senha_temporaria: ['senha'] },
  dependentSchemas: { senha_temporaria: { properties: { senha: { type: 'string', minLength: 1 } } } },
};

const discardedNote = (keys: readonly string[]) =>
  `Campos aceitos e descartados sem efeito (spec): ${keys.join(', ')}. Qualquer outro campo fora desta lista e recusado (400).`;

function senhaTemporariaOnlyWithSenha(
  body: { senha?: string | null; senha_temporaria?: boolean },
  ctx: z.RefinementCtx,
): void {
  if (body.senha_temporaria !== undefined && !body.senha) {
    ctx.addIssue({
      code: 'custom',
      path: ['senha_temporaria'],
      message: 'senha_temporaria so e aceito junto de senha.',
    });
  }
}

export const pacienteCreateBody = documented(
  z.preprocess(
    dropKeys(PACIENTE_DISCARDED_FIELDS),
    documented(
      closedObject({ nome, data_nascimento: birthDate, ...optionalFields }).superRefine(senhaTemporariaOnlyWithSenha),
      {
        json: SENHA_TEMPORARIA_JSON,
      },
    ),
  ),
  { discarded: PACIENTE_DISCARDED_FIELDS, json: { description: discardedNote(PACIENTE_DISCARDED_FIELDS) } },
);

/**
 * Merge patch: every field optional. `nome` and `data_nascimento` are required patient data, so they
 * cannot be reset (null/"" is a 400). `id` may be echoed back from a read and is ignored (the id is preserved).
 */
const PATCH_DISCARDED = [...PACIENTE_DISCARDED_FIELDS, 'id'] as const;
export const pacientePatchBody = documented(
  z.preprocess(
    dropKeys(PATCH_DISCARDED),
    documented(
      closedObject({ nome: nome.optional(), data_nascimento: birthDate.optional(), ...optionalFields }).superRefine(
        senhaTemporariaOnlyWithSenha,
      ),
      { json: SENHA_TEMPORARIA_JSON },
    ),
  ),
  {
    discarded: PATCH_DISCARDED,
    json: {
      description: `JSON Merge Patch: campo omitido fica como esta; null ou "" limpa (exceto nome e data_nascimento). ${discardedNote(PATCH_DISCARDED)}`,
    },
  },
);

const unifyId = z.union(
  [
    positiveInt,
    documented(
      z
        .string()
        .regex(/^\d{1,16}$/)
        .transform(Number)
        .pipe(z.number().int().positive().max(Number.MAX_SAFE_INTEGER)),
      {
        replace: {
          type: 'string',
          ...digitsUpTo(MAX_SAFE, 16),
          description: 'O mesmo id como texto de ate 16 digitos (valor de 1 a 2^53-1).',
        },
      },
    ),
  ],
  'Obrigatorio: inteiro > 0 (numero JSON ou texto so com digitos).',
);

export const unificarBody = closedObject({ paciente_id_principal: unifyId, paciente_id_duplicado: unifyId });

// ---------------------------------------------------------------- responses (what `data` may carry, nothing else)

const timestamp = z.string();
export const pacienteListItem = z.object({
  id: z.number().int(),
  nome: z.string(),
  cpf: nullableText,
  data_nascimento: nullableText,
  sexo: z.enum(['M', 'F']).nullable(),
  telefone: nullableText,
  email: nullableText,
  ativo: z.boolean(),
  criado_em: timestamp,
});

const detailFields = {
  id: z.number().int(),
  saudacao: z.string(),
  nome: z.string(),
  nome_registro: z.string(),
  numero_prontuario: z.string(),
  cpf: nullableText,
  rg: nullableText,
  data_nascimento: nullableText,
  // Spec 02 § Patient detail: "`M`/`F`/`MAS`/`FEM` per endpoint output, or null; write input uses `MAS|FEM|OUT`".
  sexo: z.enum(['M', 'F', 'MAS', 'FEM']).nullable(),
  estado_civil: z.object({ id: z.number().int(), nome: z.string() }).nullable(),
  telefone: nullableText,
  celular: nullableText,
  email: nullableText,
  endereco: enderecoView,
  ativo: z.boolean(),
  criado_em: timestamp,
  atualizado_em: timestamp.nullable(),
  criado_por_chave_id: z.number().int().nullable(),
  atualizado_por_chave_id: z.number().int().nullable(),
};

/** GET detail: `convenio` = {id, nome, numero_carteirinha}. */
export const pacienteDetailRead = z.object({
  ...detailFields,
  convenio: z.object({ id: z.number().int(), nome: z.string(), numero_carteirinha: z.string() }).nullable(),
});

/** Create and patch responses: `convenio` = {id, plano_id, numero_carteirinha}. */
export const pacienteDetailWrite = z.object({
  ...detailFields,
  convenio: z
    .object({ id: z.number().int(), plano_id: z.number().int().nullable(), numero_carteirinha: z.string() })
    .nullable(),
});

export const unificarResult = z.object({
  paciente_id_principal: z.number().int(),
  paciente_id_duplicado: z.number().int(),
  status: z.literal('unificado'),
});
