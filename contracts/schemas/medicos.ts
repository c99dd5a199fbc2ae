import { z } from 'zod';
import { idParam, paginationQuery, queryObject, searchText } from './params.ts';
import { activeByDefault } from './catalogos.ts';
import { documented } from './wire.ts';
import {
  birthDate,
  closedObject,
  cpfField,
  emailField,
  positiveInt,
  resettable,
  SENHA_JSON,
  senhaField,
  sexoField,
  text,
  ufField,
  USUARIO_JSON,
  usuarioField,
} from './fields.ts';
import { enderecoInputWith, enderecoView, nomePessoa, nullableText } from './pessoa.ts';

export const PAPEIS = ['EXAME', 'LAUDO', 'SOLICITANTE'] as const;
export type Papel = (typeof PAPEIS)[number];

// ---------------------------------------------------------------- query / path

const papelEnum = z.enum(PAPEIS, `Valores aceitos: ${PAPEIS.join(', ')}.`);

export const medicosListQuery = queryObject({
  /** Repeatable (`?papel=EXAME&papel=LAUDO`): several values form a union. */
  papel: documented(
    z
      .preprocess(
        (v) => (v === undefined || Array.isArray(v) ? v : [v]),
        z.array(z.string()).superRefine((list, ctx) => {
          const invalid = list.filter((v) => !(PAPEIS as readonly string[]).includes(v));
          if (invalid.length)
            ctx.addIssue({
              code: 'custom',
              message: `Valor invalido ${invalid.join(', ')}. Valores aceitos: ${PAPEIS.join(', ')}.`,
            });
        }),
      )
      .transform((list) => [...new Set(list)] as Papel[]),
    {
      replace: {
        type: 'array',
        items: { type: 'string', enum: [...PAPEIS] },
        description: 'Repetivel (?papel=EXAME&papel=LAUDO): varios valores formam uma uniao.',
      },
    },
  ).optional(),
  q: searchText(3).optional(),
  ativo: activeByDefault(),
  ...paginationQuery,
});

export const medicoIdParams = z.strictObject({ id: idParam });

// ---------------------------------------------------------------- bodies

export const conselhoInput = documented(
  closedObject(
    {
      tipo: resettable(z.string().regex(/^[A-Za-z]{2,10}$/, 'Sigla do conselho: 2 a 10 letras (CRM, CRO, ...).')),
      /** Alias of `tipo` (the list shape calls it `sigla`). */
      sigla: resettable(z.string().regex(/^[A-Za-z]{2,10}$/, 'Sigla do conselho: 2 a 10 letras (CRM, CRO, ...).')),
      numero: resettable(
        z.union([
          z.string().regex(/^\d{1,10}$/, 'Numero do conselho: 1 a 10 digitos.'),
          z.number().int().positive().max(9_999_999_999).transform(String),
        ]),
      ),
      uf: resettable(ufField),
    },
    'conselho',
  ).superRefine((c, ctx) => {
    if (c.tipo && c.sigla && c.tipo.toUpperCase() !== c.sigla.toUpperCase()) {
      ctx.addIssue({
        code: 'custom',
        path: ['sigla'],
        message: 'Informe tipo ou sigla (sinonimos), nao valores diferentes.',
      });
    }
  }),
  {
    json: {
      description:
        'tipo e sigla sao sinonimos: quando os dois vem preenchidos, devem ser iguais ignorando a caixa (x-equal-ignoring-case).',
      'x-equal-ignoring-case': ['tipo', 'sigla'],
    },
  },
);

/** `cidade`: resolved by name in the backend (within `estado` when given). */
export const enderecoInput = enderecoInputWith({ cidade: text(100) });

const nome = nomePessoa();

const optionalFields = {
  nome_registro: text(100),
  saudacao: text(30),
  saudacao_id: positiveInt.nullable().optional(),
  grupo_permissao: text(60),
  grupo_permissao_id: positiveInt.nullable().optional(),
  cpf: resettable(cpfField),
  rg: text(20),
  data_nascimento: resettable(birthDate),
  sexo: resettable(sexoField),
  conselho: conselhoInput.nullable().optional(),
  especialidade: text(100),
  papeis: z
    .array(papelEnum, 'Lista com valores EXAME, LAUDO, SOLICITANTE.')
    .transform((list) => [...new Set(list)])
    .nullable()
    .optional(),
  telefone: text(20),
  celular: text(20),
  email: resettable(emailField),
  endereco: enderecoInput.nullable().optional(),
  cor_agenda: resettable(z.string().regex(/^#[0-9A-Fa-f]{6}$/, 'Cor no formato #RRGGBB.')),
  ativo: z.boolean('Deve ser booleano (true ou false).').nullable().optional(),
};

/** Text or id, never both: the id is what the backend stores, the text is resolved by name. */
function textOrId(body: Record<string, unknown>, ctx: z.RefinementCtx): void {
  for (const field of ['saudacao', 'grupo_permissao']) {
    const textValue = body[field];
    const idValue = body[`${field}_id`];
    if (typeof textValue === 'string' && textValue.trim() !== '' && typeof idValue === 'number') {
      ctx.addIssue({ code: 'custom', path: [field], message: `Informe ${field} (texto) ou ${field}_id, nao ambos.` });
    }
  }
}

const required = 'Obrigatorio.';

/** textOrId, as JSON Schema: not (text non-blank and id) for each pair. */
const TEXT_OR_ID_JSON = {
  allOf: ['saudacao', 'grupo_permissao'].map((field) => ({
    not: {
      required: [field, `${field}_id`],
      properties: { [field]: { type: 'string', pattern: '\\S' }, [`${field}_id`]: { type: 'integer' } },
    },
  })),
};

export const medicoCreateBody = documented(
  closedObject({
    nome,
    usuario: documented(z.string(required).pipe(usuarioField), { replace: USUARIO_JSON }),
    senha: documented(z.string(required).pipe(senhaField), { replace: SENHA_JSON }),
    ...optionalFields,
  }).superRefine(textOrId),
  {
    json: {
      ...TEXT_OR_ID_JSON,
      description: 'saudacao e grupo_permissao: texto (resolvido pelo nome) ou id, nao ambos.',
    },
  },
);

/** Read-merge-write: omitted fields untouched; `nome`, `usuario` and `senha` cannot be reset (a doctor is a system user). */
export const medicoPatchBody = documented(
  closedObject({
    nome: nome.optional(),
    usuario: documented(z.string('Nao pode ser removido.').pipe(usuarioField), { replace: USUARIO_JSON }).optional(),
    senha: documented(z.string('Nao pode ser removida.').pipe(senhaField), { replace: SENHA_JSON }).optional(),
    ...optionalFields,
  }).superRefine(textOrId),
  {
    json: {
      ...TEXT_OR_ID_JSON,
      description:
        'Ler, mesclar, gravar: campo omitido fica como esta; papeis, conselho e endereco substituem o valor inteiro. nome, usuario e senha nao podem ser removidos.',
    },
  },
);

// ---------------------------------------------------------------- responses

/** Only the last 2 characters stay visible; applied again here so an unmasked value can never leave the gateway. */
export function maskDocument(value: string | null): string | null {
  if (!value) return value;
  const plain = value.replace(/\*/g, '');
  const visible = plain.slice(-2);
  return '*'.repeat(Math.max(0, value.length - visible.length)) + visible;
}

export const medicoListItem = z.object({
  id: z.number().int(),
  nome: z.string(),
  saudacao: z.string(),
  conselho: z.object({ sigla: z.string(), numero: z.string(), uf: z.string() }),
  especialidade: z.string(),
  papeis: z.array(z.enum(PAPEIS)),
  ativo: z.boolean(),
});

export const medicoDetail = z.object({
  id: z.number().int(),
  nome: z.string(),
  nome_registro: z.string(),
  saudacao: z.string(),
  saudacao_id: z.number().int().nullable(),
  cpf: documented(nullableText.transform(maskDocument), {
    json: { type: ['string', 'null'], description: 'Mascarado: so os 2 ultimos caracteres visiveis.' },
  }),
  rg: documented(nullableText.transform(maskDocument), {
    json: { type: ['string', 'null'], description: 'Mascarado: so os 2 ultimos caracteres visiveis.' },
  }),
  data_nascimento: nullableText,
  sexo: nullableText,
  conselho: z.object({ tipo: z.string(), numero: z.string(), uf: z.string() }),
  especialidade: z.string(),
  papeis: z.array(z.enum(PAPEIS)),
  grupo_permissao_id: z.number().int().nullable(),
  usuario: z.string(),
  telefone: nullableText,
  celular: nullableText,
  email: nullableText,
  endereco: enderecoView,
  cor_agenda: z.string(),
  ativo: z.boolean(),
});
