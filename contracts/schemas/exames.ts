import { z } from 'zod';
import { closedObject, cpfField, resettable, text, UFS } from './fields.ts';
import { dateString, idParam, orderedDates, paginationQuery, positiveIntQuery, queryObject } from './params.ts';
import { anyCase, base64Body, documented, trimmedLength } from './wire.ts';

/**
 * Exams (spec 02 § Exams, § Exam (list item), § Exam detail, § Exam deletion result) and the
 * inline files shared with report ingest. Format rules only (the 400s); alias resolution and
 * tenant defaults are the gateway's (server/routes/v1/exames-create.ts), semantics are backend-sim's.
 */

export const STATUS_LAUDO = ['PENDENTE', 'EMITIDO', 'ASSINADO'] as const;
export const ARQUIVO_TIPOS = ['exame', 'laudo'] as const;

// ---------------------------------------------------------------- inline files (spec 01 § Limits)

/** Spec § Limits: 20 MB per decoded inline file. */
export const MAX_INLINE_FILE_BYTES = 20 * 1024 * 1024;
export const EXAME_FILE_TYPES = ['PDF', 'PNG', 'JPG', 'JPEG'] as const;
export const LAUDO_FILE_TYPES = ['PDF'] as const;

const DATA_URI = /^data:[A-Za-z0-9.+/-]*(?:;[A-Za-z0-9.+=-]+)*;base64,/;
// Sticky, no backtracking: a linear scan of a 27 MB string, started after the data-URI prefix without slicing it.
const BASE64_BODY = /[A-Za-z0-9+/]*={0,2}$/y;

/** Index where the base64 text starts (after an accepted `data:...;base64,` prefix), or -1 for a malformed prefix. */
export function base64Start(value: string): number {
  if (!value.startsWith('data:')) return 0;
  const m = DATA_URI.exec(value.slice(0, 256));
  return m ? m[0].length : -1;
}

/** Decoded size of a (well-formed) base64 text, from its length alone: nothing is decoded or allocated. */
export function decodedBase64Size(value: string): number {
  const start = Math.max(0, base64Start(value));
  let end = value.length;
  let pad = 0;
  while (end > start && pad < 2 && value.charCodeAt(end - 1) === 61 /* = */) {
    end--;
    pad++;
  }
  return Math.floor(((end - start) * 3) / 4);
}

function isBase64(value: string): boolean {
  const start = base64Start(value);
  if (start < 0) return false;
  const chars = value.length - start;
  // A remainder of 1 character is never valid base64 (padded or not).
  if (chars === 0 || chars % 4 === 1) return false;
  BASE64_BODY.lastIndex = start;
  return BASE64_BODY.test(value);
}

export const extensionOf = (nome: string): string => /\.([A-Za-z0-9]+)$/.exec(nome)?.[1].toUpperCase() ?? '';

const base64Field = documented(
  z
    .string('Obrigatorio: conteudo do arquivo em base64.')
    .refine(
      isBase64,
      'Conteudo base64 invalido (alfabeto A-Z a-z 0-9 + / com padding =; prefixo data:...;base64, aceito).',
    ),
  {
    replace: {
      type: 'string',
      contentEncoding: 'base64',
      pattern: `^(?:data:[A-Za-z0-9.+/-]*(?:;[A-Za-z0-9.+=-]+)*;base64,)?(?:${base64Body(false)})$`,
      description:
        'Conteudo do arquivo em base64 (alfabeto padrao, padding = opcional), ate 20 MB depois de decodificado (senao 400 VAL_FILE_TOO_LARGE). ' +
        'Prefixo data-URI aceito (data:<tipo>;base64,) nos primeiros 256 caracteres.',
    },
  },
);

/**
 * A file name once trimmed: 1 to 255 characters ending in `.<extension>` (any case). Exact, as a regular expression.
 */
export function fileNameJson(types: readonly string[]): Record<string, unknown> {
  const alternatives = types.map((ext) => `(?:\\S[\\s\\S]{0,${253 - ext.length}})?\\.${anyCase([ext])}`);
  return {
    type: 'string',
    minLength: 1,
    pattern: `^\\s*(?:${alternatives.join('|')})\\s*$`,
    description: `Nome do arquivo com extensao ${types.join(', ')} (qualquer caixa; a extensao define o tipo), ate 255 caracteres depois de remover os espacos das pontas.`,
  };
}

/** `{nome, base64}`: the type is the name's extension. The 20 MB rule is checked by the handler (its own code, VAL_FILE_TOO_LARGE). */
export const inlineFile = (types: readonly string[], what = 'arquivo') =>
  closedObject(
    {
      nome: documented(
        z
          .string('Obrigatorio: nome do arquivo com extensao.')
          .trim()
          .min(1, 'Obrigatorio: nome do arquivo com extensao.')
          .max(255, 'Deve ter no maximo 255 caracteres.')
          .superRefine((nome, ctx) => {
            if (!types.includes(extensionOf(nome))) {
              ctx.addIssue({
                code: 'custom',
                input: nome,
                message: `Tipo de arquivo nao permitido (aceitos: ${types.join(', ')}).`,
                values: [...types],
              });
            }
          }),
        { replace: fileNameJson(types) },
      ),
      base64: base64Field,
    },
    what,
  );

// ---------------------------------------------------------------- query / path

export const exameIdParams = z.strictObject({ id: idParam });

export const exameListQuery = orderedDates(
  queryObject({
    paciente_id: positiveIntQuery.optional(),
    medico_id: positiveIntQuery.optional(),
    tipo_exame_id: positiveIntQuery.optional(),
    periodo_realizado_inicio: dateString.optional(),
    periodo_realizado_fim: dateString.optional(),
    status_laudo: z.enum(STATUS_LAUDO, `Valor aceito: ${STATUS_LAUDO.join(', ')}.`).optional(),
    ...paginationQuery,
  }),
  'periodo_realizado_fim',
  'periodo_realizado_inicio',
);

export const exameArquivoQuery = queryObject({
  tipo: z.enum(ARQUIVO_TIPOS, `Obrigatorio: ${ARQUIVO_TIPOS.join(' ou ')}.`),
});

// ---------------------------------------------------------------- POST /v1/exames

/** Spec: blocked fields of exam create (400). */
export const EXAME_BLOCKED_FIELDS = [
  'exame_bloqueado',
  'valor_repasse',
  'valor_custo',
  'software',
  'imprimir',
  'criado_por',
  'medico_filtro_id',
  '_via_api_chave_id',
] as const;

/** A field the API refuses whatever its value (even null). */
export const blockedField = documented(z.never('Campo bloqueado: nao pode ser enviado pela API.').optional(), {
  blocked: true,
});
export const blockedFields = (names: readonly string[]) =>
  Object.fromEntries(names.map((n) => [n, blockedField])) as Record<string, typeof blockedField>;

/** A foreign key: integer > 0; `0` and `null` mean "not sent" (tenant defaults then apply, spec precedence rule 4). */
export const refId = z
  .number('Deve ser um inteiro positivo (0 ou null = nao informado).')
  .int('Deve ser um inteiro positivo (0 ou null = nao informado).')
  .min(0, 'Deve ser um inteiro positivo (0 ou null = nao informado).')
  .max(Number.MAX_SAFE_INTEGER)
  .nullable()
  .optional();

/**
 * Compared after trimming and collapsing whitespace runs to one space. A regular expression cannot count that
 * length, so the document gives the shape as a pattern and the bounds in `x-normalized-length`.
 */
const trimmed = (min: number, max: number) =>
  documented(
    z
      .string('Deve ser texto.')
      .transform((v) => v.trim().replace(/\s+/g, ' '))
      .pipe(
        z
          .string()
          .min(min, `Deve ter de ${min} a ${max} caracteres.`)
          .max(max, `Deve ter de ${min} a ${max} caracteres.`),
      ),
    {
      replace: {
        type: 'string',
        minLength: min,
        pattern: min >= 2 ? '^\\s*\\S[\\s\\S]*\\S\\s*$' : '^\\s*\\S(?:[\\s\\S]*\\S)?\\s*$',
        'x-normalized-length': { minimum: min, maximum: max },
        description: `De ${min} a ${max} caracteres depois de remover os espacos das pontas e reduzir cada sequencia de espacos a um (x-normalized-length).`,
      },
    },
  );

/** CRM of a doctor: the council number (1-10 digits), optionally with its state: `123456`, `123456/SP`, `123456-SP`. */
export const CRM_PATTERN = /^(\d{1,10})(?:[/-]([A-Za-z]{2}))?$/;
export const crmAlias = documented(
  z
    .string('Deve ser texto: numero do CRM, opcionalmente com a UF (123456 ou 123456/SP).')
    .trim()
    .regex(CRM_PATTERN, {
      message: 'CRM invalido: use o numero (1 a 10 digitos), opcionalmente com a UF: 123456 ou 123456/SP.',
      abort: true,
    })
    .refine((v) => {
      const uf = CRM_PATTERN.exec(v)?.[2];
      return !uf || (UFS as readonly string[]).includes(uf.toUpperCase());
    }, 'CRM invalido: UF inexistente.'),
  {
    replace: {
      type: 'string',
      pattern: `^\\s*[0-9]{1,10}(?:[/-]${anyCase(UFS)})?\\s*$`,
      description: 'Numero do CRM (1 a 10 digitos), opcionalmente com a UF: 123456, 123456/SP ou 123456-SP.',
    },
  },
);

export function parseCrm(value: string): { numero: string; uf: string | null } {
  const m = CRM_PATTERN.exec(value.trim())!;
  return { numero: m[1].replace(/^0+(?=\d)/, ''), uf: m[2]?.toUpperCase() ?? null };
}

/** A code of exactly `digits` digits (the TUSS code, the ANS registry), blanks around it trimmed. */
const digitCode = (name: string, digits: number) =>
  documented(
    z
      .string(`Deve ser texto de ${digits} digitos.`)
      .trim()
      .regex(new RegExp(`^\\d{${digits}}$`), `${name} deve ter exatamente ${digits} digitos.`),
    {
      replace: { type: 'string', pattern: `^\\s*[0-9]{${digits}}\\s*$`, description: `${name}: ${digits} digitos.` },
    },
  );

/** Spec § POST /v1/exames, aliases: exact-equality match after normalization, resolved before the backend call. */
export const EXAME_ALIAS_FORMATS = {
  paciente_cpf: cpfField,
  procedimento_codigo_tuss: digitCode('Codigo TUSS', 8),
  procedimento_abreviacao: trimmed(1, 30),
  convenio_codigo_ans: digitCode('Registro ANS', 6),
  convenio_nome: trimmed(2, 100),
  medico_exame_crm: crmAlias,
  medico_laudo_crm: crmAlias,
  unidade_nome: trimmed(2, 100),
} as const;
export type ExameAlias = keyof typeof EXAME_ALIAS_FORMATS;

/** `null` and `""` mean "alias not sent". */
const aliasFields = {
  paciente_cpf: resettable(EXAME_ALIAS_FORMATS.paciente_cpf),
  procedimento_codigo_tuss: resettable(EXAME_ALIAS_FORMATS.procedimento_codigo_tuss),
  procedimento_abreviacao: resettable(EXAME_ALIAS_FORMATS.procedimento_abreviacao),
  convenio_codigo_ans: resettable(EXAME_ALIAS_FORMATS.convenio_codigo_ans),
  convenio_nome: resettable(EXAME_ALIAS_FORMATS.convenio_nome),
  medico_exame_crm: resettable(EXAME_ALIAS_FORMATS.medico_exame_crm),
  medico_laudo_crm: resettable(EXAME_ALIAS_FORMATS.medico_laudo_crm),
  unidade_nome: resettable(EXAME_ALIAS_FORMATS.unidade_nome),
};

export const arquivoExameInput = inlineFile(EXAME_FILE_TYPES);
export const arquivoLaudoInput = inlineFile(LAUDO_FILE_TYPES);

export const arquivosInput = closedObject(
  {
    exames: z.array(arquivoExameInput, 'Deve ser uma lista de {nome, base64}.').optional(),
    laudos: z.array(arquivoLaudoInput, 'Deve ser uma lista de {nome, base64}.').optional(),
  },
  'arquivos',
);

export const exameCreateBody = closedObject({
  paciente_id: refId,
  unidade_id: refId,
  procedimento_id: refId,
  medico_exame_id: refId,
  medico_laudo_id: refId,
  grupos_laudos_id: refId,
  medico_solicitante_id: refId,
  data_exame: resettable(dateString),
  numero: text(100),
  referencia: text(255),
  observacoes: text(5000),
  requer_laudo: z.literal([0, 1], 'Valor aceito: 0 ou 1.').optional(),
  cid_id: refId,
  complementos_id: refId,
  plano_id: refId,
  convenio_id: refId,
  prioridade: z.literal([1, 2, 3], 'Valor aceito: 1 (Normal), 2 (Alta) ou 3 (Urgente).').optional(),
  arquivos: arquivosInput.nullable().optional(),
  ...aliasFields,
  ...blockedFields(EXAME_BLOCKED_FIELDS),
});
export type ExameCreateBody = z.output<typeof exameCreateBody>;

// ---------------------------------------------------------------- DELETE /v1/exames/{id}

export const EXAME_DELETE_BLOCKED_FIELDS = [
  'exameid',
  'exame_id',
  'exames_id',
  'id',
  'status_id',
  'excluido_por',
  'excluido_em',
  '_via_api_chave_id',
] as const;

export const exameDeleteBody = closedObject({
  motivo: documented(
    z
      .string('Obrigatorio: motivo da exclusao (3 a 500 caracteres).')
      .transform((v) => v.trim())
      .pipe(z.string().min(3, 'Deve ter de 3 a 500 caracteres.').max(500, 'Deve ter de 3 a 500 caracteres.')),
    { replace: trimmedLength(3, 500) },
  ),
  ...blockedFields(EXAME_DELETE_BLOCKED_FIELDS),
});

const ref = z.object({ id: z.number().int(), nome: z.string() });

// ---------------------------------------------------------------- responses (what `data` may carry, nothing else)

export const exameListItem = z.object({
  id: z.number().int(),
  paciente: ref,
  medico_exame: ref.nullable(),
  medico_laudo: ref.nullable(),
  solicitante: ref.nullable(),
  tipo_exame: ref,
  data_realizado: z.string(),
  status_laudo: z.enum(STATUS_LAUDO),
  tem_arquivo_exame: z.boolean(),
  tem_arquivo_laudo: z.boolean(),
  criado_em: z.string(),
});

const urls = {
  url_arquivo_exame: z.string().nullable(),
  url_arquivo_laudo: z.string().nullable(),
};

export const exameDetail = exameListItem.extend({
  hora_realizado: z.string().nullable(),
  laudo_assinado_em: z.string().nullable(),
  ...urls,
  atualizado_em: z.string().nullable(),
});

/** Create response: detail without hora_realizado / laudo_assinado_em / atualizado_em, plus requer_laudo and prioridade. */
export const exameCreated = exameListItem.extend({
  ...urls,
  requer_laudo: z.boolean(),
  prioridade: z.number().int().min(1).max(3),
});

export const exameDeleteResult = z.object({
  id: z.number().int(),
  status: z.literal('EXCLUIDO'),
  excluido_em: z.string(),
  motivo: z.string(),
  laudos_excluidos: z.number().int(),
});

/** Where a file lives (backend-sim `.../arquivo`); presigned by the gateway, never shown to a client. */
export const storedObject = z.object({ bucket: z.string(), object_key: z.string() });
